import type { ExternalCall, PendingApproval } from "../step-record.js";
import { approvalDigest } from "./digest.js";
import type { RunState } from "./run-state.js";
import { signatureOf, stateDigestOf } from "./run-state.js";
import { waitingCalls } from "./sub-runs.js";

/**
 * Finishes a state for writing: lists the calls of its open step that wait for a decision,
 * each with the digest that binds a decision to that call in this state, then signs it when
 * the loop has a key. The state is changed in place and returned.
 */
export async function sealState(
  state: RunState,
  signingKey: string | Uint8Array | undefined,
): Promise<RunState> {
  const waiting = await pendingOf(state);
  const pending = waiting.filter((call) => !call.external).map(({ call }) => call);
  const external = waiting.filter((call) => call.external).map(({ call }) => call);
  if (pending.length > 0) state.pending = pending;
  if (external.length > 0) state.external = external as ExternalCall[];
  if (signingKey !== undefined) state.signature = await signatureOf(state, signingKey);
  return state;
}

/**
 * The calls waiting for a decision (or, `external`, a client-side tool's result): the open
 * step's own, and those of paused sub-runs nested in it (each naming its sub-run), every digest
 * bound to this state, which holds theirs.
 */
async function pendingOf(state: RunState): Promise<{ call: PendingApproval; external: boolean }[]> {
  const waiting = waitingCalls(state);
  if (waiting.length === 0) return [];
  const stateDigest = await stateDigestOf(state);
  return Promise.all(
    waiting.map(async ({ key, path, runId, record }) => {
      const { toolCallId, toolName, args, reason } = record;
      const digest = await approvalDigest(state.runId, key, toolName, args, stateDigest);
      const pending: PendingApproval = { toolCallId, toolName, args, digest };
      if (reason !== undefined && !record.external) pending.reason = reason;
      if (path.length > 0) pending.subRun = { runId, path };
      return { call: Object.freeze(pending), external: record.external === true };
    }),
  );
}
