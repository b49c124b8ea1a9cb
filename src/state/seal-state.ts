import type { PendingApproval } from "../step-record.js";
import { approvalDigest } from "./digest.js";
import type { RunState } from "./run-state.js";
import { signatureOf, stateDigestOf } from "./run-state.js";

/**
 * Finishes a state for writing: lists the calls of its open step that wait for a decision,
 * each with the digest that binds a decision to that call in this state, then signs it when
 * the loop has a key. The state is changed in place and returned.
 */
export async function sealState(
  state: RunState,
  signingKey: string | Uint8Array | undefined,
): Promise<RunState> {
  const pending = await pendingOf(state);
  if (pending.length > 0) state.pending = pending;
  if (signingKey !== undefined) state.signature = await signatureOf(state, signingKey);
  return state;
}

async function pendingOf(state: RunState): Promise<PendingApproval[]> {
  if (state.status !== "needs_approval" && state.status !== "running") return [];
  const calls = state.steps[state.steps.length - 1]?.calls ?? [];
  const waiting = calls.filter((call) => call.verdict === "needs-approval" && !call.result);
  if (waiting.length === 0) return [];
  const stateDigest = await stateDigestOf(state);
  return Promise.all(
    waiting.map(async ({ toolCallId, toolName, args, reason }) => {
      const digest = await approvalDigest(state.runId, toolCallId, toolName, args, stateDigest);
      const pending: PendingApproval = { toolCallId, toolName, args, digest };
      if (reason !== undefined) pending.reason = reason;
      return Object.freeze(pending);
    }),
  );
}
