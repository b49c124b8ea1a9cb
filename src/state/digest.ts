import { canonicalJson, sha256Hex } from "../util/canonical-json.js";

/**
 * The digest an approval is bound to: who asked (run, call), for which tool, with which args
 * (in the model's form), in which paused state (`stateDigest`, the SHA-256 of the state
 * without its `pending` list and signature). A decision carrying it was made for exactly
 * that call in exactly that state.
 */
export function approvalDigest(
  runId: string,
  toolCallId: string,
  toolName: string,
  args: unknown,
  stateDigest: string,
): Promise<string> {
  return sha256Hex(canonicalJson([runId, toolCallId, toolName, args, stateDigest]));
}
