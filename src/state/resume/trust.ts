import { messageOf, ResumeError } from "../../errors.js";
import type { RunState } from "../../types/run-state.js";
import { sameHex } from "../../util/canonical-json.js";
import { isPlainObject } from "../../util/values.js";
import { signatureOf } from "../run-state.js";
import type { StoreCalls } from "../store-calls.js";

/**
 * Where a state to resume came from: the loop's own store (trusted); the caller, by value; or
 * the caller, by value, for a run the loop's store has never held ("foreign": only a
 * signature or `trustState` vouches for it, never digests); or a parent's checked state that
 * holds it (a paused sub-run: trusted as its parent is).
 */
export type StateSource = "store" | "value" | "foreign" | "parent";

/** What of the loop's options decides whether a state may run: its key, its store, its trust. */
export interface TrustSettings {
  signingKey: string | Uint8Array | undefined;
  trustState: boolean;
  /** Whether a state by value may resume without a store to claim it (`allowReplay`). */
  allowReplay: boolean;
  store: StoreCalls | undefined;
}

/**
 * The form of a signature and of a digest: 64 lowercase hex digits. Checked before comparing,
 * so that a malformed one is named as such rather than as a mismatch.
 */
export const HEX64 = /^[0-9a-f]{64}$/;

/** A copy of the given state that no one else holds: plain JSON data, read once. */
export function privateCopy(given: unknown): RunState {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new ResumeError("this is not a tollgate run state (not an object)");
  }
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(given));
  } catch (error) {
    throw new ResumeError(`this is not a tollgate run state: it is not JSON (${messageOf(error)})`);
  }
  if (!Number.isInteger((copy as RunState).version)) {
    throw new ResumeError("this is not a tollgate run state (no whole-number `version`)");
  }
  return copy as RunState;
}

/**
 * Decides whether a state may run, before anything else is read. A loop with a `signingKey`
 * needs a valid signature, always. Otherwise a state from the store, or any state under
 * `trustState: true`, is trusted; a state by value must have every decision carry its
 * digest (returns true: digest mode), and digests need a store to claim the state, or
 * `allowReplay` (exactly once is the default).
 */
export async function trustOf(
  options: TrustSettings,
  state: RunState,
  source: StateSource,
  decisions: unknown,
): Promise<boolean> {
  const key = options.signingKey;
  const { signature } = state;
  if (key !== undefined) {
    if (signature === undefined) {
      throw new ResumeError(
        "the state is not signed, and this loop (it has a signingKey) only resumes signed states",
      );
    }
    if (typeof signature !== "string" || !HEX64.test(signature)) {
      throw new ResumeError("the state's signature is not a signature (64 hex digits)");
    }
    if (!sameHex(signature, await signatureOf(state, key))) {
      throw new ResumeError(
        "the state's signature does not match: it was changed after it was written, or signed with another key",
      );
    }
    return false;
  }
  if (signature !== undefined) {
    throw new ResumeError("the state is signed; give the loop the signingKey it was signed with");
  }
  if (source === "store" || source === "parent" || options.trustState) return false;
  if (source === "foreign") {
    throw new ResumeError(
      `this loop's store holds no state of run ${state.runId} (it was deleted, or never written here), so a state of it passed by value resumes only with a valid signature (AgentLoop signingKey), or with trustState: true if the state never left your own process or storage`,
    );
  }
  return digestMode(options, decisions);
}

/**
 * An unsigned state by value, not trusted as it is: it runs only when every decision carries
 * its digest (returns true), and a store (or `allowReplay`) keeps it from running twice.
 */
function digestMode(options: TrustSettings, decisions: unknown): true {
  const all = isPlainObject(decisions) ? Object.values(decisions) : [];
  const withDigest = all.filter((d) => isPlainObject(d) && typeof d.digest === "string").length;
  if (all.length > 0 && withDigest === all.length) {
    if (options.store === undefined && !options.allowReplay) {
      throw new ResumeError(
        "this state was passed by value and its decisions carry digests, but this loop has no store to claim it: another loop (another process, or a new AgentLoop per request) could resume the same state and run its tools again. " +
          "Give the loop a store (memoryRunStore() in one process, a shared one across processes) and resume by runId, or set allowReplay: true on the loop if running a paused call twice is acceptable",
      );
    }
    return true;
  }
  const missing =
    all.length === 0
      ? "no decisions were given"
      : `${all.length - withDigest} of ${all.length} decisions carry no digest`;
  throw new ResumeError(
    `this state was passed by value without a signature, so it cannot be trusted as it is (${missing}). Sign states (AgentLoop signingKey), ` +
      "resume by runId from the loop's store, give each decision the digest of its pending call from your own record of `pending` ({ approve, digest }), " +
      "or, if the state never left your own process or storage, set trustState: true on the loop",
  );
}
