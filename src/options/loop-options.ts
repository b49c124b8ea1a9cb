import type { LoopPolicy } from "../gate/policy.js";
import type { OutputOption, ResolvedOutput } from "../output/output-option.js";
import type { RunStore } from "../state/run-store.js";
import type { StoreCalls } from "../state/store-calls.js";
import type { ArgsLimits } from "../tools/args.js";
import type { Toolset } from "../tools/toolset.js";
import type { ListenerErrorHandler, LoopListener } from "../types/events.js";
import type { Handoff, HandoffAgent, HandoffInputFilter } from "../types/handoff.js";
import type {
  PostModelCallHook,
  PostToolCallHook,
  PreModelCallHook,
  PreToolCallHook,
} from "../types/hooks.js";
import type { UsageLimits } from "../types/limits.js";
import type { ToolSpec } from "../types/messages.js";
import type { ModelSettings, Provider } from "../types/provider.js";
import type { StopCondition } from "../types/stop-conditions.js";
import type { Tool } from "../types/tool.js";
import type { FormatToolError, RepairToolCall } from "../types/tool-feedback.js";

/**
 * What `new AgentLoop()` takes. Only `provider` is required, and `deps` when the tools, hooks
 * or policy need them: a `Deps` that does not admit `undefined` makes `deps` required.
 */
export type AgentLoopOptions<Deps = unknown> = AgentLoopBaseOptions<Deps> & DepsOption<Deps>;

/**
 * The `deps` option: passed to every tool, hook and policy call (a run may give its own).
 * Optional when `Deps` admits `undefined` (`unknown`, the default, does), required otherwise,
 * so a loop whose tools read `ctx.deps` cannot be built without them.
 */
export type DepsOption<Deps> = undefined extends Deps
  ? { deps?: Deps | undefined }
  : { deps: Deps };

/** Every option of `new AgentLoop()` but `deps` (see `AgentLoopOptions`). */
export interface AgentLoopBaseOptions<Deps = unknown> {
  provider: Provider;
  /**
   * The agent's name (1–64 letters, digits, `_`, `-`): what states, steps and results record
   * as the agent holding the run. A loop with `handoffs`, and each loop it hands off to, needs one.
   */
  name?: string | undefined;
  /**
   * Agents this one may hand the run to (OpenAI Agents' handoffs): each is a tool
   * (`transfer_to_<name>`) that passes the gate like any call; once its step closes, the
   * target goes on with the transcript and its own tools, instructions and gate. An
   * `AgentLoop`, or `handoff(loop, { inputFilter, description, toolName })`.
   */
  handoffs?: (HandoffAgent | Handoff<Deps>)[] | undefined;
  tools?: Toolset<Deps> | Tool<Deps>[] | Record<string, Tool<Deps>> | undefined;
  /** The system prompt. */
  instructions?: string | undefined;
  /** Pre-call hooks, run in this order for every call. */
  preToolCall?: PreToolCallHook<Deps>[] | undefined;
  /**
   * Post-call hooks, run in this order on every executed call's result before the model sees
   * it: replace the output, block it, or stop the run.
   */
  postToolCall?: PostToolCallHook<Deps>[] | undefined;
  /**
   * Pre-model hooks, run in this order on every model request before it reaches the provider:
   * replace the messages sent (redaction), block the request (the run rejects with
   * `ModelCallBlockedError`), or stop the run.
   */
  preModelCall?: PreModelCallHook<Deps>[] | undefined;
  /**
   * Post-model hooks, run in this order on every model response before the loop acts on it:
   * replace its text, block it (`ModelCallBlockedError`), or stop the run. With these, a
   * response's deltas reach listeners only once the hooks have passed it.
   */
  postModelCall?: PostModelCallHook<Deps>[] | undefined;
  policy?: LoopPolicy<Deps> | undefined;
  /** Model calls per run (default 20); past it the run ends with status "max_steps". */
  maxSteps?: number | undefined;
  /** Calls of one step that run at once (default 8); results keep call order. */
  maxParallelToolCalls?: number | undefined;
  /** "continue" (default): a throwing tool gives the model an error result. "throw": the run rejects. */
  toolErrors?: "continue" | "throw" | undefined;
  /** Calls to tools that are not callable, fed back before the run rejects (default 1). */
  maxRetries?: number | undefined;
  /** Sampling settings sent with every model request. */
  settings?: ModelSettings | undefined;
  /** Where listener errors go (default `console.error`). */
  onListenerError?: ListenerErrorHandler | undefined;
  /** Aborts every run of this loop. */
  signal?: AbortSignal | undefined;
  onEvent?: LoopListener | undefined;
  /**
   * Keeps states across processes: paused states and checkpoints around every tool call are
   * written to it, and `resume()` claims a state there, so it runs once across workers.
   */
  store?: RunStore | undefined;
  /**
   * Signs every state written (HMAC-SHA-256); `resume()` then rejects a state without a valid
   * signature, whatever else is given. Use it whenever a state leaves your process by value.
   */
  signingKey?: string | Uint8Array | undefined;
  /**
   * `true`: states passed to `resume()` by value are trusted as they are, without a signature
   * or digests. Only for states that never left your own process or storage.
   */
  trustState?: boolean | undefined;
  /**
   * `true`: this loop may resume a state by value (signed, or with digests) without a `store`
   * to claim it, so two loops, or two processes, can each resume the same state and run its
   * tools again. By default such a loop is refused: give it a `store` (`memoryRunStore()` in
   * one process) and a state resumes once everywhere. Only for tools safe to run twice.
   */
  allowReplay?: boolean | undefined;
  /** Limits on the args text the model sends (default 1 MB, nesting depth 64). */
  argsLimits?: Partial<ArgsLimits> | undefined;
  /** A call a human refused, asked again with the same args: "auto-deny" (default) or "ask" again. */
  repeatDenied?: "auto-deny" | "ask" | undefined;
  /**
   * Fixes the args of calls that failed parsing or validation before the model is told:
   * return fixed args (validated again, then gated like the model's own) or `undefined`.
   * A repair counts like a retry against the tool's `maxRetries`.
   */
  repairToolCall?: RepairToolCall<Deps> | undefined;
  /**
   * Writes the text the model reads for blocked, denied, invalid, unavailable and refused
   * calls (`info.message` is the default text); must return a string.
   */
  formatToolError?: FormatToolError | undefined;
  /** Upgrades states of older versions: `{ [fromVersion]: (state) => stateOfNextVersion }`. */
  stateMigrations?: Record<number, (state: any) => unknown> | undefined;
  /**
   * Structured output: the final answer's schema (or `{ schema, mode?, name?, description? }`);
   * the answer is validated and comes back as `result.output`. A run may give its own.
   */
  output?: OutputOption<any> | undefined;
  /**
   * Caps per run on model calls, tool executions and tokens; reaching one ends the run with
   * status "limit_reached". A run may give its own, key by key over these.
   */
  limits?: UsageLimits | undefined;
  /**
   * Conditions over the steps so far (`stepCountIs(n)`, `hasToolCall(name)`, or your own),
   * asked in order after each step that would let the run go on; the first that answers
   * `true` ends the run with status "stopped_by_condition". A run may give its own list.
   */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /**
   * Milliseconds a whole run may take (each `run()` or `resume()`); past it the run is
   * aborted and rejects with `RunTimeoutError`. A run may give its own.
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds each model call may take, from the request to the last streamed part; past
   * it the call is aborted and the run rejects with `ModelTimeoutError` (a `ProviderError`).
   * Distinct from a tool's `timeoutMs`. A run may give its own.
   */
  modelTimeoutMs?: number | undefined;
}

/** The options, checked and with defaults filled in, once per loop. */
export interface ResolvedOptions<Deps> {
  provider: Provider;
  /** The agent's name (`name`), when it has one. */
  name: string | undefined;
  /** The handoffs, by tool name; `undefined` for a loop without any. */
  handoffs: ReadonlyMap<string, ResolvedHandoff<Deps>> | undefined;
  /**
   * For the options a handed-over run uses (`handedOptions`): the options of the loop the run
   * was started or resumed on, whose run-level settings they keep. `undefined` otherwise.
   */
  root: ResolvedOptions<Deps> | undefined;
  tools: Toolset<Deps>;
  /** Specs of every tool, computed once, for steps without `prepareStep`. */
  specs: ToolSpec[];
  deps: Deps;
  instructions: string | undefined;
  hooks: readonly PreToolCallHook<Deps>[];
  /** The post-call chain (`postToolCall`). */
  postHooks: readonly PostToolCallHook<Deps>[];
  /** The model-side chains (`preModelCall`, `postModelCall`); `undefined` when both are empty, so a loop without them checks one field per step. */
  modelHooks: ModelHooks<Deps> | undefined;
  policy: LoopPolicy<Deps>;
  maxSteps: number;
  maxParallelToolCalls: number;
  toolErrors: "continue" | "throw";
  maxRetries: number;
  settings: ModelSettings | undefined;
  signal: AbortSignal | undefined;
  /** The store, behind the loop's guards. */
  store: StoreCalls | undefined;
  signingKey: string | Uint8Array | undefined;
  trustState: boolean;
  /** A state by value may resume without a store to claim it (`allowReplay`). */
  allowReplay: boolean;
  argsLimits: ArgsLimits;
  repeatDenied: "auto-deny" | "ask";
  repairToolCall: RepairToolCall<Deps> | undefined;
  formatToolError: FormatToolError | undefined;
  stateMigrations: Record<number, (state: any) => unknown>;
  /** The loop's structured output, checked. */
  output: ResolvedOutput | undefined;
  limits: Readonly<UsageLimits>;
  stopWhen: readonly StopCondition<Deps>[];
  timeoutMs: number | undefined;
  modelTimeoutMs: number | undefined;
  /**
   * The tools of a step without `prepareStep`, made on the first step (see `prepareStep`), with
   * the toolset they were made from: a copy of these options with other tools makes its own.
   */
  everyTool: { tools: Toolset<Deps>; offered: unknown } | undefined;
}

/** A handoff of a loop, resolved: its target's name, its tool, its filter, the target's options. */
export interface ResolvedHandoff<Deps> {
  readonly agent: string;
  readonly tool: Tool<Deps>;
  readonly inputFilter: HandoffInputFilter<Deps> | undefined;
  /** The target's resolved options (a function target is asked on first use). */
  options(): ResolvedOptions<Deps>;
}

/** The model-side hook chains of a loop that has at least one. */
export interface ModelHooks<Deps> {
  pre: readonly PreModelCallHook<Deps>[];
  post: readonly PostModelCallHook<Deps>[];
}
