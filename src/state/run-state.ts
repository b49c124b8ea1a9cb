import type { RunState } from "../types/run-state.js";
import { canonicalJson, hmacHex, sha256Hex } from "../util/canonical-json.js";

/**
 * The version of `RunState` this build writes and reads. Version 2: args everywhere in the
 * model's form (no `input` field), `unavailableCalls` counted per tool name, digests bound to
 * their state. Version 3: a finished step's results are stored once, in its tool message
 * (`toolMessage`); a version 2 state is upgraded on resume, with no migration to register.
 */
export const RUN_STATE_VERSION = 3;

/** The signature of a state: HMAC-SHA-256 over the canonical JSON of all but `signature`. */
export function signatureOf(state: RunState, key: string | Uint8Array): Promise<string> {
  const { signature: _ignored, ...signed } = state;
  return hmacHex(key, canonicalJson(signed));
}

/**
 * Whether a run with this status is paused: waiting for approvals (`needs_approval`, which
 * may list client-side calls too) or for client-side tools' results only (`needs_results`).
 */
export const isPaused = (status: unknown): status is "needs_approval" | "needs_results" =>
  status === "needs_approval" || status === "needs_results";

/**
 * The SHA-256 of a state without its `pending` and `external` lists and signature: what
 * approval (and result) digests bind to.
 */
export function stateDigestOf(state: RunState): Promise<string> {
  const { signature: _signature, pending: _pending, external: _external, ...content } = state;
  return sha256Hex(canonicalJson(content));
}
