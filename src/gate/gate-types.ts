import type { ArgsLimits } from "../tools/args.js";
import type { PreToolCallHook } from "../types/hooks.js";
import type { ToolCall, ToolCallPart } from "../types/messages.js";
import type { ModelRequest, Provider } from "../types/provider.js";
import type { DeniedCall, RememberedDecision } from "../types/run-state.js";
import type { DecidedBy } from "../types/step-record.js";
import type { Tool, ToolContext } from "../types/tool.js";
import type { RepairToolCall } from "../types/tool-feedback.js";
import type { LoopPolicy } from "./policy.js";

/**
 * What the gate decided for one call, and who decided it. One union for every stage of the
 * gate (hooks, memory, decision, repair), so the loop reads one answer whoever gave it.
 */
export type GateOutcome =
  | { kind: "unavailable"; by: "default"; message: string }
  | { kind: "invalid"; by: "schema"; message: string }
  | ({ kind: "stop"; reason?: string } & Judged)
  | ({ kind: "block"; message: string } & Judged)
  | ({ kind: "result"; output: unknown } & Judged)
  | ({ kind: "deny"; reason?: string } & Judged)
  | ({ kind: "needs-approval"; reason?: string } & Judged)
  | ({ kind: "allow"; reason?: string; parsed: unknown } & Judged);

/**
 * A call whose args were read and validated: who decided, and the call (frozen) with its
 * final args in the model's form. An allowed call also carries `parsed`, the schema's output
 * for those args: what `execute` gets.
 */
interface Judged {
  by: DecidedBy;
  call: ToolCall;
  /** The model's args failed parsing or validation; `call.args` are `repairToolCall`'s fix. */
  repaired?: true;
}

/**
 * One call to judge, and everything the gate needs to judge it. The loop builds one per call;
 * the gate reads only this, so it can be tested without a loop.
 */
export interface GateRequest<Deps> {
  part: ToolCallPart;
  /** The tool, when it is callable in this step. */
  tool: Tool<Deps> | undefined;
  /** Names of the tools callable in this step, for the "not available" message. */
  callable: readonly string[];
  step: number;
  /** The run's executed tool names (the live list: `decideToolCall` gets a copy, when read). */
  executed?: readonly string[] | undefined;
  hooks: readonly PreToolCallHook<Deps>[];
  policy: LoopPolicy<Deps>;
  deps: Deps;
  provider: { name: string; model: string };
  argsLimits: ArgsLimits;
  /** The context the tool would run with, for `needsApproval`. */
  context: (tool: Tool<Deps>) => ToolContext<Deps>;
  /** The earlier refusal of this exact call, when refusals are remembered. */
  refused: (call: ToolCall) => DeniedCall | undefined;
  /** The decision a human asked to remember for every later call of this tool in the run. */
  remembered?: ((toolName: string) => RememberedDecision | undefined) | undefined;
  /** The loop's `repairToolCall`, for calls whose args failed parsing or validation. */
  repair?: RepairToolCall<Deps> | undefined;
  /** The step's request as its provider got it, for `repair` (given only with it). */
  sent?: (() => SentRequest) | undefined;
}

/** A step's model request as it was sent, and who it was sent to: what a repair may read. */
export interface SentRequest {
  request: ModelRequest;
  provider: Provider;
  runId: string;
  /** The run's signal (made when first read). */
  signal(): AbortSignal;
}
