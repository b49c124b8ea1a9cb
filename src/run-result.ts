import type { Message, ToolCall, Usage } from "./messages.js";
import type { ModelResponse } from "./provider.js";
import type { RunState, RunStatus } from "./state/run-state.js";
import type { PendingApproval, StepRecord } from "./step-record.js";

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
