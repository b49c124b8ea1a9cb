import type { ToolCall } from "../types/messages.js";
import type { DeniedCall, RememberedDecision } from "../types/run-state.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import type { GateOutcome } from "./gate-types.js";

/**
 * A human's earlier refusal of this exact call, as the gate answers it: DENY by approval. Asked
 * after the hooks (a hook may still stop or block), before the decision: a refused call is
 * never put to a human twice.
 */
export function refusedBefore(call: ToolCall, refused: DeniedCall): GateOutcome {
  const because = refused.reason === undefined ? "" : ` (${refused.reason})`;
  return {
    kind: "deny",
    by: "approval",
    call,
    reason: `already refused in this run${because}; do not ask for it again`,
  };
}

/**
 * A remembered refusal of the call's tool, as the gate answers it: DENY by approval, for every
 * later call of that tool in the run, without asking the policy.
 */
export function refusedByMemory(call: ToolCall, remembered: RememberedDecision): GateOutcome {
  const because = remembered.reason === undefined ? "" : ` (${remembered.reason})`;
  return {
    kind: "deny",
    by: "approval",
    call,
    reason: `refused for the rest of this run by a remembered decision${because}; do not call ${call.name} again`,
  };
}

/**
 * The decision under a remembered approval of the call's tool. It answers only the question a
 * human would have been asked: it turns NEEDS_APPROVAL into ALLOW, never a block or a DENY.
 */
export function approvedByMemory(
  decision: MaybePromise<GateOutcome>,
  parsed: unknown,
): MaybePromise<GateOutcome> {
  return andThen(decision, (outcome) =>
    outcome.kind === "needs-approval"
      ? {
          kind: "allow",
          by: "approval",
          call: outcome.call,
          parsed,
          reason: "approved for the rest of this run by a remembered decision",
        }
      : outcome,
  );
}
