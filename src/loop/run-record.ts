import {
  messageOf,
  OutputValidationError,
  TollgateError,
  ToolRetriesExceededError,
} from "../errors.js";
import type { RunLease } from "../state/run-store.js";
import type { RunData } from "../state/snapshot.js";
import { withoutAdvice } from "../tools/args.js";
import type { LimitName, ReachedLimit } from "../types/limits.js";
import type { Message, ToolResult, Usage } from "../types/messages.js";
import type { ModelResponse } from "../types/provider.js";
import type { DeniedCall, RememberedDecision } from "../types/run-state.js";
import type { StepRecord } from "../types/step-record.js";
import type { Tool } from "../types/tool.js";
import { addUsage } from "../util/usage.js";
import { notRun, type OpenCall } from "./call-record.js";
import type { RunConfig, RunContext } from "./run-context.js";

/**
 * A run's life, as `call-record.ts` is a call's: the run's data (`RunData`: transcript, steps,
 * usage, counts, refusals) changes only through the named transitions below, in step order,
 * and each emits the event that says so. Everywhere else the data is read-only (its type says
 * so): a transition is the one place to look for who changed what. The counts come with their
 * budgets: a tool's failures against its `maxRetries` (`countFailure`, `failTool`,
 * `failOutput`), model calls and tool executions against the usage limits (`takeModelCall`,
 * `takeToolCall`, `limitOfStep`).
 */

/** The run's data as the transitions write it. */
type Writable = {
  -readonly [K in keyof RunData]: RunData[K] extends readonly (infer T)[]
    ? T[]
    : RunData[K] extends ReadonlyMap<infer K2, infer V>
      ? Map<K2, V>
      : RunData[K];
} & { callCounts: { modelCalls: number; toolCalls: number } };

const data = <Deps>(run: RunContext<Deps>) => run as unknown as Writable;

/**
 * A handoff took effect: `config` (its target's) holds the run from the next step on, with
 * the transcript `messages` when an input filter wrote one, and `handoff` says so. Decisions
 * remembered for a tool are forgotten: they were the handing agent's.
 */
export function handedOff<Deps>(
  run: RunContext<Deps>,
  config: RunConfig<Deps>,
  messages: Message[] | undefined,
  taken: { step: number; toolCallId: string; toolName: string },
): void {
  const from = run.agent ?? "";
  const run_ = data(run);
  (run as { config: RunConfig<Deps> }).config = config;
  const to = config.options.name!;
  run_.agent = to;
  // A remembered decision (`remember: "tool"`) was made for the handing agent's tool of that
  // name: the target's may be another tool, so it is asked again.
  if (run_.remembered.length > 0) run_.remembered = [];
  if (messages) run_.messages = messages;
  if (run.listening()) {
    const { step, toolCallId, toolName } = taken;
    run.emit({ type: "handoff", runId: run.runId, step, toolCallId, toolName, from, to });
  }
}

/** A model call is about to be made: it counts against `modelCalls`. */
export function modelCallTaken<Deps>(run: RunContext<Deps>): void {
  data(run).callCounts.modelCalls++;
}

/**
 * The model answered: its usage adds up, its parts join the transcript as one assistant
 * message (none for an empty answer), and `model-response` says so.
 */
export function modelAnswered<Deps>(
  run: RunContext<Deps>,
  step: number,
  response: ModelResponse,
): void {
  const run_ = data(run);
  run_.usage = addUsage(run_.usage, response.usage);
  if (response.parts.length > 0) run_.messages.push({ role: "assistant", parts: response.parts });
  if (run.listening()) {
    const { finishReason, usage } = response;
    run.emit({ type: "model-response", runId: run.runId, step, finishReason, usage, response });
  }
}

/** A sub-run's model call (`loop.asTool`): its usage adds up into this run's. */
export function subRunUsed<Deps>(run: RunContext<Deps>, usage: Usage): void {
  const run_ = data(run);
  run_.usage = addUsage(run_.usage, usage);
}

/**
 * A step opened on the model's answer (or a paused step reopened on resume): from now on the
 * run's checkpoints see it, through `record`.
 */
export function stepOpened<Deps>(run: RunContext<Deps>, record: () => StepRecord): void {
  data(run).stepInProgress = record;
}

/**
 * The step closed: its tool message (every call's result, in call order) joins the transcript
 * unless calls still wait, its record joins the steps, and `step-finish` says so.
 */
export function stepClosed<Deps>(
  run: RunContext<Deps>,
  record: StepRecord,
  results: ToolResult[] | undefined,
): void {
  const run_ = data(run);
  if (results) run_.messages.push({ role: "tool", results });
  run_.stepInProgress = undefined;
  run_.steps.push(record);
  if (run.listening())
    run.emit({ type: "step-finish", runId: run.runId, step: record.index, record });
}

/**
 * The model's final answer was refused (structured output): the problem goes back to it as a
 * user message, and the run goes on.
 */
export function answerRefused<Deps>(run: RunContext<Deps>, message: Message): void {
  data(run).messages.push(message);
}

/** A tool is about to execute: it counts against `toolCalls`. */
export function toolCallTaken<Deps>(run: RunContext<Deps>): void {
  data(run).callCounts.toolCalls++;
}

/** A call of the step succeeded: its tool's name joins `executed` (in call order, read by `prepareStep`). */
export function toolExecuted<Deps>(run: RunContext<Deps>, name: string): void {
  data(run).executed.push(name);
}

/** One more failure under a tool's (or the output's) name; the count so far. */
export function failureCounted<Deps>(run: RunContext<Deps>, name: string): number {
  const failures = (run.retries.get(name) ?? 0) + 1;
  data(run).retries.set(name, failures);
  return failures;
}

/** One more call to a tool that was not callable, by name; the count so far. */
export function unavailableCounted<Deps>(run: RunContext<Deps>, name: string): number {
  const calls = (run.unavailableCalls.get(name) ?? 0) + 1;
  data(run).unavailableCalls.set(name, calls);
  return calls;
}

/** A human refused a call: the same call asked again is refused without asking (`repeatDenied`). */
export function callDenied<Deps>(run: RunContext<Deps>, denied: DeniedCall): void {
  data(run).denied.push(denied);
}

/** A human's decision kept for every later call of the tool in this run (`remember: "tool"`). */
export function decisionRemembered<Deps>(
  run: RunContext<Deps>,
  decision: RememberedDecision,
): void {
  const remembered = data(run).remembered;
  const at = remembered.findIndex((kept) => kept.toolName === decision.toolName);
  if (at === -1) remembered.push(decision);
  else remembered[at] = decision;
}

/** The run took its run id's lease in the store (a new run): every write from now on carries it. */
export function leaseTaken<Deps>(run: RunContext<Deps>, lease: RunLease): void {
  (run as { lease: RunLease | undefined }).lease = lease;
}

/**
 * Counts a call the gate turned away against its tool's retries (invalid args, or args that
 * `repairToolCall` fixed), or, for a call
 * to a tool that is not callable, against the loop's `maxRetries` for that name; throws
 * `ToolRetriesExceededError` past the limit.
 */
export function countFailure<Deps>(run: RunContext<Deps>, open: OpenCall<Deps>): void {
  const { record } = open;
  if (record.verdict === "unavailable") {
    const calls = unavailableCounted(run, record.toolName);
    const { maxRetries } = run.config.options;
    if (calls > maxRetries) {
      throw new ToolRetriesExceededError(record.toolName, maxRetries, {
        cause: new TollgateError(record.reason ?? String(record.result?.output)),
        unavailable: true,
      });
    }
  } else if (record.verdict === "invalid") {
    // The error is the developer's: the problem, without the advice the model read with it.
    const problem = record.reason ?? String(record.result?.output);
    failTool(run, open.tool!, new TollgateError(withoutAdvice(problem)));
  } else if (record.repairedFrom !== undefined) {
    // A repair is a retry the model did not have to make: it counts as one.
    const problem = `the args of ${record.toolName} failed parsing or validation (repaired by repairToolCall)`;
    failTool(run, open.tool!, new TollgateError(problem));
  }
}

/** Counts one failure of a tool; throws `ToolRetriesExceededError` past its `maxRetries`. */
export function failTool<Deps>(run: RunContext<Deps>, tool: Tool<Deps>, cause: unknown): void {
  // The final-answer tool's failures are the output's: `OutputValidationError` past the budget.
  if (tool === run.config.output?.tool) {
    failOutput(run, messageOf(cause));
    return;
  }
  const failures = failureCounted(run, tool.name);
  if (failures > tool.maxRetries)
    throw new ToolRetriesExceededError(tool.name, tool.maxRetries, { cause });
}

/**
 * Counts one failed final answer, refused by the schema or by `output.validate` (under the
 * output's name, as a tool's failures are); throws `OutputValidationError` past the loop's
 * `maxRetries`.
 */
export function failOutput<Deps>(run: RunContext<Deps>, problem: string): void {
  const { name } = run.config.output!;
  const failures = failureCounted(run, name);
  const { maxRetries } = run.config.options;
  if (failures > maxRetries) {
    throw new OutputValidationError(
      `the model's final answer failed the output schema (or output.validate) more often than the loop's maxRetries (${maxRetries}) allows; the last problem: ${problem}`,
    );
  }
}

/** A token limit: both a limit's name and a count of `Usage`. */
type TokenLimit = LimitName & keyof Usage;

/** The token limits, checked before each model call against the run's `usage`. */
const TOKEN_LIMITS: readonly TokenLimit[] = ["inputTokens", "outputTokens", "totalTokens"];

/**
 * Before a model call: the limit the call would go past (`modelCalls` made, or a token count
 * that has reached its limit or that the provider left `unknown`: fail closed), else
 * `undefined`, and the call is counted.
 */
export function takeModelCall<Deps>(run: RunContext<Deps>): ReachedLimit | undefined {
  const { limits, callCounts, usage } = run;
  const calls = limits.modelCalls;
  if (calls !== undefined && callCounts.modelCalls >= calls) {
    return { name: "modelCalls", value: calls, used: callCounts.modelCalls };
  }
  for (const name of TOKEN_LIMITS) {
    const value = limits[name];
    if (value === undefined) continue;
    if (usage[name] >= value) return { name, value, used: usage[name] };
    if (usage.unknown) return { name, value, used: usage[name], unknown: true };
  }
  modelCallTaken(run);
  return undefined;
}

/**
 * Before a tool execution: the `toolCalls` limit when it is used up, else `undefined`, and the
 * execution is counted. The final-answer tool of structured output ("tool" mode) is the model's
 * answer, not a tool execution: it is neither counted nor stopped.
 */
export function takeToolCall<Deps>(
  run: RunContext<Deps>,
  open: OpenCall<Deps>,
): ReachedLimit | undefined {
  if (open.tool !== undefined && open.tool === run.config.output?.tool) return undefined;
  const reached = toolCallsUsedUp(run);
  if (!reached) toolCallTaken(run);
  return reached;
}

/** The `toolCalls` limit when no tool may run any more, else `undefined`. */
export function toolCallsUsedUp<Deps>(run: RunContext<Deps>): ReachedLimit | undefined {
  const value = run.limits.toolCalls;
  const used = run.callCounts.toolCalls;
  return value !== undefined && used >= value ? { name: "toolCalls", value, used } : undefined;
}

/** The result text of a call a limit stopped: "not run: limit reached (toolCalls 5)". */
export function notRunByLimit<Deps>(open: OpenCall<Deps>, limit: ReachedLimit): void {
  notRun(open, `not run: limit reached (${limit.name} ${limit.value})`);
}
