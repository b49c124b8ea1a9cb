import type { Toolset } from "../tools/toolset.js";
import type { Message, ToolCall } from "../types/messages.js";
import type { ModelRequest, ModelSettings, Provider } from "../types/provider.js";
import type { StepRecord } from "../types/step-record.js";
import type { Tool, ToolContext } from "../types/tool.js";

/** The policy's answer for one call; `undefined` defers to the default (the tool's `needsApproval`, then ALLOW). */
export type Decision =
  | "ALLOW"
  | "DENY"
  | "NEEDS_APPROVAL"
  | { decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL"; reason?: string | undefined }
  | undefined
  | void;

/**
 * What `prepareStep` may return for the richer case: the tools shown, the ones that may run,
 * the tool choice, and for this step only: its instructions, settings, provider and the
 * messages sent to the model. Each key given is recorded in the step's `StepRecord`.
 */
export interface StepTools<Deps = unknown> {
  /** Shown to the model (default: every tool). */
  tools?: Tool<Deps>[] | string[] | undefined;
  /** May run (default: all shown). Keeping `tools` stable while narrowing this keeps prompt caches warm. */
  callable?: string[] | undefined;
  toolChoice?: ModelRequest["toolChoice"] | undefined;
  /** The system prompt of this step, instead of the run's. */
  instructions?: string | undefined;
  /** Settings of this step, over the run's, key by key (checked as the loop's are). */
  settings?: ModelSettings | undefined;
  /** The model of this step, instead of the loop's (checked as the loop's is). */
  provider?: Provider | undefined;
  /**
   * The messages sent to the model in this step, instead of the whole transcript (compaction,
   * trimming). Checked as `run()`'s input is, and every tool message must directly follow the
   * assistant message whose calls it answers, one result per call. The transcript itself
   * (`result.messages`, the state) keeps every message; the next step is asked again.
   */
  messages?: Message[] | undefined;
}

/** What `prepareStep` may return; `undefined` shows every tool. */
export type PreparedStep<Deps> =
  | Tool<Deps>[]
  | Toolset<Deps>
  | string[]
  | StepTools<Deps>
  | undefined
  | void;

/**
 * The loop's policy: who may run (`decideToolCall`), when a result ends the run (`endsRun`),
 * which tools each step offers (`prepareStep`), and how a tool is executed (`executeTool`).
 * Every method is optional. Every answer is checked: a method that throws, or answers with
 * something that is not one of its documented answers, rejects the run with `PolicyError`.
 * `call.args` is always in the model's form (the JSON it sent, completed with the schema's
 * defaults, as hooks left it).
 */
export interface LoopPolicy<Deps = unknown> {
  decideToolCall?(args: {
    call: ToolCall;
    tool: Tool<Deps>;
    needsApproval: boolean;
    step: number;
    deps: Deps;
    /**
     * Names of the tools that executed successfully in this run before this step, in order
     * (as `prepareStep` gets them): a copy, made when read. Calls of the same step are not in it.
     */
    readonly executed: string[];
  }): Decision | Promise<Decision>;
  endsRun?(args: {
    call: ToolCall;
    output: unknown;
    tools: Tool<Deps>[];
  }): boolean | Promise<boolean>;
  prepareStep?(args: {
    stepIndex: number;
    executed: string[];
    tools: Toolset<Deps>;
    /** The transcript so far (a copy, made when read): trim or compact it into `messages`. */
    messages: Message[];
    /** The steps so far (a copy, made when read). */
    steps: StepRecord[];
  }): PreparedStep<Deps> | Promise<PreparedStep<Deps>>;
  /**
   * Runs an allowed call instead of `tool.execute`. `args` is the schema's output for
   * `call.args` (transforms applied): pass it to `tool.execute(args, ctx)`. What
   * the tool throws stays the tool's error (an error result, or `RetryError`); anything else
   * this method throws is a `PolicyError`.
   */
  executeTool?(args: {
    call: ToolCall;
    /** What `tool.execute` takes: the schema's output for `call.args`, computed once. */
    args: unknown;
    tool: Tool<Deps>;
    tools: Tool<Deps>[];
    stepIndex: number;
    signal: AbortSignal;
    ctx: ToolContext<Deps>;
  }): Promise<unknown>;
}
