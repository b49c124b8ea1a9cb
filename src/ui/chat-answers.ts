import type { ApprovalDecisions, RunState } from "tollgate";
import { canonicalJson } from "../util/canonical-json.js";
import { isPlainObject } from "../util/values.js";
import { chatCallId, isApprovalOf, type WaitingCall } from "./approval-id.js";
import { ChatRefusal } from "./chat-request.js";
import type { UIMessageInput, UIPartInput } from "./ui-message.js";

const NOTHING_RAN = "nothing ran";

/**
 * The decisions the browser's last assistant message gives the run the SERVER stored: for each
 * call it waits on, an approval answered in the chat (`addToolApprovalResponse`) whose id is the
 * one issued for that call in that pause, or a client-side tool's output (`addToolOutput`), each
 * for the args the call waits with. Anything else is refused (409) and nothing runs: a run that
 * does not wait, a call left unanswered, an approval issued for another call or another pause (a
 * replayed or stale one), an answer given for other args.
 */
export async function answersOf(
  state: RunState | undefined,
  message: UIMessageInput,
): Promise<ApprovalDecisions> {
  const waiting = [...(state?.pending ?? []), ...(state?.external ?? [])];
  if (state === undefined || waiting.length === 0) {
    const why = state === undefined ? "the chat has no run" : `its run is ${state.status}`;
    throw new ChatRefusal(
      409,
      `the chat's run is not waiting for an answer (${why}): the approval or result was answered already, or never asked for; ${NOTHING_RAN}`,
    );
  }
  const parts = toolParts(message);
  if (!waiting.some((call) => parts.has(chatCallId(call)))) {
    throw new ChatRefusal(
      409,
      `the chat's last message answers none of the calls the run waits on now (${waiting.map(chatCallId).join(", ")}): a replayed or stale request; ${NOTHING_RAN}`,
    );
  }
  const decisions: ApprovalDecisions = {};
  for (const call of state.pending ?? []) {
    const part = answered(parts, call);
    if (part.state !== "approval-responded") {
      throw refusal(
        call,
        `is not answered: approve or deny it first (its part is ${String(part.state)})`,
      );
    }
    const approval = isPlainObject(part.approval) ? part.approval : {};
    if (!(await isApprovalOf(approval.id, call))) {
      throw refusal(call, "has no approval issued for this pause (a replayed or stale approval)");
    }
    if (typeof approval.approved !== "boolean")
      throw refusal(call, "has an approval without `approved`");
    const reason =
      typeof approval.reason === "string" && approval.reason !== "" ? approval.reason : undefined;
    const { digest } = call; // binds the decision to this state, should the store move on meanwhile
    decisions[chatCallId(call)] = approval.approved
      ? { approve: true, digest }
      : reason === undefined
        ? { approve: false, digest }
        : { approve: false, reason, digest };
  }
  for (const call of state.external ?? []) {
    const part = answered(parts, call);
    const { digest } = call;
    if (part.state === "output-available") {
      decisions[chatCallId(call)] = { result: part.output ?? null, digest };
    } else if (part.state === "output-error" && typeof part.errorText === "string") {
      decisions[chatCallId(call)] = { error: part.errorText, digest };
    } else
      throw refusal(call, `has no result from the page yet (its part is ${String(part.state)})`);
  }
  return decisions;
}

/** The tool parts of a message by the chat's call id (the last one, should an id repeat). */
function toolParts(message: UIMessageInput): Map<string, UIPartInput> {
  const parts = new Map<string, UIPartInput>();
  for (const part of message.parts) {
    const isTool =
      isPlainObject(part) &&
      typeof part.type === "string" &&
      (part.type === "dynamic-tool" || part.type.startsWith("tool-"));
    if (isTool && typeof part.toolCallId === "string") parts.set(part.toolCallId, part);
  }
  return parts;
}

/** The browser's part for a waiting call, for the same tool and the same args. */
function answered(parts: Map<string, UIPartInput>, call: WaitingCall): UIPartInput {
  const part = parts.get(chatCallId(call));
  if (part === undefined) throw refusal(call, "has no answer in the chat's last message");
  const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
  if (name !== call.toolName) throw refusal(call, `is answered as a call to ${String(name)}`);
  if (!sameArgs(part.input, call.args)) {
    throw refusal(call, "is answered for other args than the call waits with");
  }
  return part;
}

function sameArgs(shown: unknown, args: unknown): boolean {
  try {
    return canonicalJson(shown) === canonicalJson(args);
  } catch {
    return false;
  }
}

const refusal = (call: WaitingCall, what: string) =>
  new ChatRefusal(
    409,
    `the call to ${call.toolName} (${chatCallId(call)}) ${what}; ${NOTHING_RAN}`,
  );
