import { TollgateError } from "../errors.js";
import { parentCallOf } from "../loop/parent-call.js";
import type { ResumePlan } from "../state/resume/resolutions.js";
import { registerSubAgent } from "../state/sub-runs.js";
import { checkedJsonSchema, stringFields } from "../tools/checked-json-schema.js";
import type { InferArgs, InferOutput, JsonSchema } from "../tools/schema.js";
import { tool } from "../tools/tool.js";
import type { LoopEvent } from "../types/events.js";
import type { Message } from "../types/messages.js";
import type { RunResult } from "../types/run-result.js";
import type { RunState, SubRunParent } from "../types/run-state.js";
import type { StandardSchema } from "../types/schema.js";
import type { NeedsApproval, Tool, ToolContext } from "../types/tool.js";
import { checkKeys } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";

/** A sub-agent tool's input when `asTool()` is given none: the task, as a prompt. */
export type PromptInput = JsonSchema<{ prompt: string }>;

/**
 * What `loop.asTool()` takes. `Deps` are the sub-agent's, `ParentDeps` the calling loop's;
 * `Schema` types the args the parent's model sends (default `{ prompt: string }`).
 */
export interface AgentToolOptions<Deps, ParentDeps, Schema extends StandardSchema> {
  /** The tool's name, as the parent's model sees it. */
  name: string;
  /** What the sub-agent does, for the parent's model. */
  description: string;
  /** The args the parent's model sends; default `{ prompt: string }`, the sub-run's prompt. */
  input?: Schema | undefined;
  /**
   * The sub-run's prompt from the args (the schema's output). Default: `args.prompt` for the
   * default input, else the args as JSON text.
   */
  prompt?: ((args: InferOutput<Schema>) => string | Message[]) | undefined;
  /** The sub-run's deps, from the parent's call context; default: the sub-agent loop's own `deps`. */
  deps?: ((ctx: ToolContext<ParentDeps>) => Deps) | undefined;
  /** Whether the parent's call needs a human's approval before the sub-agent runs at all. */
  needsApproval?: NeedsApproval<ParentDeps, InferArgs<Schema>> | undefined;
  /** Aborts the sub-run after this long; the parent's model gets "timed out". */
  timeoutMs?: number | undefined;
  /** True: the sub-agent runs alone in its parent's step. */
  sequential?: boolean | undefined;
}

const AGENT_TOOL_KEYS = [
  "name",
  "description",
  "input",
  "prompt",
  "deps",
  "needsApproval",
  "timeoutMs",
  "sequential",
];
const AGENT_TOOL_ALIASES: Readonly<Record<string, string>> = {
  parameters: "input",
  inputSchema: "input",
  toolName: "name",
  toolDescription: "description",
  requiresApproval: "needsApproval",
  timeout: "timeoutMs",
  context: "deps",
};

/** How a sub-agent tool starts and continues runs of its loop (given by `AgentLoop.asTool`). */
export interface SubRunner<Deps> {
  /** The loop has a `RunStore`: refused, a sub-run's states live inside its parent's. */
  readonly hasStore: boolean;
  start(
    input: string | Message[],
    parent: SubRunParent | undefined,
    options: { signal: AbortSignal; deps?: Deps },
    sink: (event: LoopEvent) => void,
  ): Promise<RunResult>;
  continue(
    plan: ResumePlan,
    options: { signal: AbortSignal; deps?: Deps },
    sink: (event: LoopEvent) => void,
  ): Promise<RunResult>;
  /** Checks a paused sub-run's state with its decisions; nothing runs. */
  plan(state: RunState, decisions: Record<string, unknown>): Promise<ResumePlan>;
}

let promptInput: PromptInput | undefined;

/** The default input, made on the first `asTool()` without one (not when tollgate loads). */
function defaultInput(): PromptInput {
  promptInput ??= checkedJsonSchema<{ prompt: string }>(
    {
      type: "object",
      properties: { prompt: { type: "string", description: "The task, in full" } },
      required: ["prompt"],
      additionalProperties: false,
    },
    stringFields(["prompt"]),
  );
  return promptInput;
}

const ignore = () => {};

/**
 * Builds a sub-agent tool with `tool()`, so the parent's gate decides whether it runs. Each
 * call runs the sub-agent's loop (or, when the parent was resumed, continues its paused run)
 * under the call's signal; its events go to the parent as `sub-run` events. Its answer (its
 * structured output as JSON text, else its final text, else the output of the tool that ended
 * it) is the call's output; a pause for approval pauses the parent; a failure is the call's
 * failure.
 */
export function agentTool<Deps, ParentDeps, Schema extends StandardSchema>(
  options: AgentToolOptions<Deps, ParentDeps, Schema>,
  runner: SubRunner<Deps>,
): Tool<ParentDeps, InferOutput<Schema>, InferArgs<Schema>> {
  const where =
    typeof options?.name === "string" ? `asTool() for "${options.name}"` : "asTool() options";
  checkKeys(where, options, AGENT_TOOL_KEYS, AGENT_TOOL_ALIASES);
  const { name, description, input, prompt, deps } = options;
  if (typeof description !== "string" || description.trim() === "") {
    throw new TypeError(
      `${where}: give a description: the parent's model reads it to know when to call the sub-agent`,
    );
  }
  for (const [key, value] of [
    ["prompt", prompt],
    ["deps", deps],
  ] as const) {
    if (value !== undefined && typeof value !== "function") {
      throw new TypeError(
        `${where}: \`${key}\` must be a function (${key === "deps" ? "ctx => the sub-run's deps" : "args => the sub-run's prompt"}), got ${kindOf(value)}`,
      );
    }
  }
  if (runner.hasStore) {
    throw new TypeError(
      `${where}: the loop has a store; a sub-agent's states live inside its parent's, so give the store to the parent loop instead`,
    );
  }
  const promptOf = (args: any): string | Message[] => {
    const given = prompt ? prompt(args) : input === undefined ? args.prompt : JSON.stringify(args);
    if (typeof given === "string" || Array.isArray(given)) return given;
    throw new TypeError(
      `sub-agent ${name}: prompt(args) must return a string or messages, got ${kindOf(given)}`,
    );
  };
  const built = tool<ParentDeps, StandardSchema>({
    name,
    description,
    input: input ?? defaultInput(),
    needsApproval: (options.needsApproval ?? false) as NeedsApproval<ParentDeps, unknown>,
    timeoutMs: options.timeoutMs,
    sequential: options.sequential,
    execute: async (args, ctx) => {
      const parent = parentCallOf(ctx);
      const sink = parent ? (event: LoopEvent) => parent.forward(event) : ignore;
      const runOptions: { signal: AbortSignal; deps?: Deps } = { signal: ctx.signal };
      if (deps) runOptions.deps = deps(ctx);
      const result = parent?.continues
        ? await runner.continue(parent.continues, runOptions, sink)
        : await runner.start(
            promptOf(args),
            parent && { runId: parent.runId, toolCallId: parent.toolCallId },
            runOptions,
            sink,
          );
      if (result.status !== "needs_approval") return answerOf(name, result);
      if (!parent) {
        throw new TollgateError(
          `sub-agent ${name} paused for approval, but its call was not run by an AgentLoop with the context it was given, so the pause cannot reach a parent; its pending calls did not run`,
        );
      }
      parent.pause(result.state, built);
      return undefined;
    },
  });
  registerSubAgent(built.execute, { plan: (state, decisions) => runner.plan(state, decisions) });
  return built as Tool<ParentDeps, InferOutput<Schema>, InferArgs<Schema>>;
}

/**
 * The call's output, the sub-run's answer (see `answerIn`). A sub-run that ended by its own
 * rules answers: it completed, a tool ended it, or a step bound said it had gone far enough
 * (`maxSteps`, `stopWhen`: both say when to stop, not that the task failed, so both answer
 * alike). One that a guard cut short (a hook's stop, a usage limit) failed its task: the
 * call's failure.
 */
function answerOf(name: string, result: RunResult): string {
  switch (result.status) {
    case "completed":
    case "ended_by_tool":
    case "max_steps":
    case "stopped_by_condition":
      return answerIn(name, result);
    case "stopped":
      throw new TollgateError(
        `sub-agent ${name} was stopped${result.stopReason === undefined ? "" : `: ${result.stopReason}`}`,
      );
    default:
      throw new TollgateError(`sub-agent ${name} ended with status "${result.status}"`);
  }
}

/**
 * What the parent reads of a sub-run, always text: its structured output as JSON text when it
 * has one (in every output mode), else its final text, else, when a tool ended it without
 * text, that tool's output (a string as it is, anything else as JSON text).
 */
function answerIn(name: string, result: RunResult): string {
  if (result.output !== undefined) {
    const text = jsonText(result.output);
    if (text !== undefined) return text;
    throw new TollgateError(
      `sub-agent ${name}: its structured output cannot be written as JSON text for its parent; make the output schema's values JSON (no BigInt, function or cycle)`,
    );
  }
  if (result.text !== "" || result.endedBy === undefined) return result.text;
  const output = endingOutput(result, result.endedBy.id);
  return typeof output === "string" ? output : (jsonText(output) ?? "");
}

/** The output of the call that ended the run, as its record keeps it (JSON data). */
function endingOutput(result: RunResult, toolCallId: string): unknown {
  for (let index = result.steps.length - 1; index >= 0; index--) {
    const call = result.steps[index]!.calls.find((record) => record.toolCallId === toolCallId);
    if (call?.result) return call.result.output;
  }
  return undefined;
}

/** A value's JSON text, or `undefined` when JSON cannot carry it. */
function jsonText(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}
