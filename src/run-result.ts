import type { Message, ToolCall, ToolResult, Usage } from "./messages.js";
import type { ModelRequest, ModelResponse } from "./provider.js";
import type { RunState } from "./run-state.js";

/** How a run ended. */
export type RunStatus = "completed" | "stopped" | "ended_by_tool" | "needs_approval" | "max_steps";

/** What the gate decided for one call. */
export type Verdict =
  | "allow"
  | "deny"
  | "needs-approval"
  | "block"
  | "result"
  | "stop"
  | "invalid"
  | "unavailable";

/** Who decided: a hook (0-based index), the policy, the tool's `needsApproval`, the schema, a human, or the default. */
export type DecidedBy = `hook:${number}` | "policy" | "tool" | "schema" | "default" | "approval";

/** One tool call of a step: what the model sent, what the gate decided, and what came of it. */
export interface CallRecord {
  toolCallId: string;
  toolName: string;
  /** The args' JSON text as the model sent it. */
  rawArgs: string;
  /** The final args (parsed, validated, after hooks and edits); absent when they never parsed. */
  args?: unknown;
  /** The args as schema input (before parsing), kept until the call settles so it can be parsed again on resume. */
  input?: unknown;
  /** The args before a human edited them on approval. */
  editedFrom?: unknown;
  /** In checkpoints: the call had started and not settled when the state was written. */
  started?: boolean;
  verdict: Verdict;
  by: DecidedBy;
  reason?: string;
  /** Absent only while the call waits for approval. */
  result?: ToolResult;
  /** How long the tool ran, when it ran. */
  ms?: number;
}

/** One step: one model call and the tool calls it asked for. */
export interface StepRecord {
  index: number;
  /** Names of the tools shown to the model. */
  tools: string[];
  /** Names of the tools that could run. */
  callable: string[];
  toolChoice?: ModelRequest["toolChoice"];
  response: Omit<ModelResponse, "raw">;
  calls: CallRecord[];
  usage: Usage;
  /** Wall time of the step, model call and tools together. */
  ms: number;
}

/** A call waiting for a human's decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  args: unknown;
  reason?: string;
  /** SHA-256 of (runId, toolCallId, toolName, args): a decision may carry it to bind itself to this exact call. */
  digest: string;
}

/**
 * A call that had started and not settled when its run was aborted: its side effects are
 * uncertain. Listed on the abort reason's `unsettledCalls` (when the reason is an object).
 */
export interface UnsettledCall {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/** What `run()` resolves with for every normal ending. */
export interface RunResult {
  status: RunStatus;
  /** The last assistant message's text ("" if none). */
  text: string;
  /** The whole transcript, provider-neutral. */
  messages: Message[];
  steps: StepRecord[];
  usage: Usage;
  /** Why a hook stopped the run (status "stopped"). */
  stopReason?: string;
  /** The call whose result ended the run (status "ended_by_tool"). */
  endedBy?: ToolCall;
  /** Calls waiting for approval (status "needs_approval"). */
  pending?: PendingApproval[];
  finishReason: ModelResponse["finishReason"];
  /** Plain JSON: store it anywhere and `resume()` a paused run from it. */
  state: RunState;
}
