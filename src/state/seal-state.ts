import type { RunState } from "../types/run-state.js";
import type { ExternalCall, PendingApproval } from "../types/step-record.js";
import { approvalDigest } from "./digest.js";
import { signatureOf, stateDigestOf } from "./run-state.js";
import { waitingCalls } from "./sub-runs.js";

/** A call as a state's `pending` or `external` list shows it, all but its `digest`. */
export type ListedCall = Omit<PendingApproval, "digest">;

/**
 * The calls a state lists as waiting, as its steps derive them, in call order: for `pending`
 * (a decision) or `external` (a client-side result), each with `key`, how decisions name it.
 * The one derivation of those lists: `sealState` writes it, `resume` checks a state against it.
 */
export function listedCalls(
  state: RunState,
): { key: string; external: boolean; call: ListedCall }[] {
  return waitingCalls(state).map(({ key, path, runId, record }) => {
    const { toolCallId, toolName, args, reason } = record;
    const call: ListedCall = { toolCallId, toolName, args };
    if (reason !== undefined && !record.external) call.reason = reason;
    if (path.length > 0) call.subRun = { runId, path };
    return { key, external: record.external === true, call };
  });
}

/**
 * Finishes a state for writing: lists the calls of its open step (and of paused sub-runs
 * nested in it) that wait for a decision (`pending`) or a client-side result (`external`),
 * each with the digest that binds a decision to that call in this state, then signs it when
 * the loop has a key. The state is changed in place and returned.
 */
export async function sealState(
  state: RunState,
  signingKey: string | Uint8Array | undefined,
): Promise<RunState> {
  const listed = listedCalls(state);
  if (listed.length > 0) {
    const stateDigest = await stateDigestOf(state);
    const sealed = await Promise.all(
      listed.map(async ({ key, external, call: { toolCallId, toolName, args, ...rest } }) => {
        const digest = await approvalDigest(state.runId, key, toolName, args, stateDigest);
        return { external, call: Object.freeze({ toolCallId, toolName, args, digest, ...rest }) };
      }),
    );
    const pending = sealed.filter((entry) => !entry.external).map(({ call }) => call);
    const external = sealed.filter((entry) => entry.external).map(({ call }) => call);
    if (pending.length > 0) state.pending = pending;
    if (external.length > 0) state.external = external as ExternalCall[];
  }
  if (signingKey !== undefined) state.signature = await signatureOf(state, signingKey);
  return state;
}
