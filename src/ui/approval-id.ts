import { sameHex, sha256Hex } from "../util/canonical-json.js";

/** What a paused call is known by in a chat: its id, or `path/…/id` inside a sub-agent. */
export interface WaitingCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  digest: string;
  subRun?: { runId: string; path: string[] } | undefined;
}

/** The chat's id of a waiting call: its `toolCallId`, prefixed by its sub-run's call path. */
export const chatCallId = (call: WaitingCall): string =>
  call.subRun ? [...call.subRun.path, call.toolCallId].join("/") : call.toolCallId;

/**
 * The approval id the chat is given for a pending call: derived from the call's digest (its run,
 * id, tool, args and paused state), so an approval answers exactly the call it was issued for, in
 * exactly that pause; a replayed or stale one never matches. The digest itself stays on the server.
 */
export async function approvalIdOf(call: WaitingCall): Promise<string> {
  return `approval_${(await sha256Hex(`tollgate/ui approval\n${call.digest}`)).slice(0, 40)}`;
}

/** Whether `given` (from the browser) is the approval id issued for `call`. */
export async function isApprovalOf(given: unknown, call: WaitingCall): Promise<boolean> {
  return typeof given === "string" && sameHex(given, await approvalIdOf(call));
}
