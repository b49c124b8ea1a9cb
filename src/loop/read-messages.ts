import { messageOf } from "../errors.js";
import { freezeJson } from "../tools/args.js";
import type { Message } from "../types/messages.js";
import { storedMessage } from "../util/content-parts.js";
import { shortForm } from "../util/policy-call.js";
import { messagesProblem } from "./message-schema.js";

/** A value read from user code, or what is wrong with it. */
export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Reads a step's messages as `run()` reads its input (each message stored, parts checked),
 * copies them (the caller keeps no handle on what is sent), checks them against the state's
 * message schema, then checks the transcript's invariant.
 */
export function readMessages(value: unknown): Read<readonly Message[]> {
  if (!Array.isArray(value)) return { ok: false, problem: `are ${shortForm(value)}, not an array` };
  if (value.length === 0) return { ok: false, problem: "are empty; send at least one message" };
  let messages: Message[];
  try {
    messages = structuredClone(value.map((message, index) => storedMessage(message, index)));
  } catch (error) {
    return { ok: false, problem: `fail: ${messageOf(error).replace(/^run\(\): /, "")}` };
  }
  const problem = messagesProblem(messages) ?? invariantProblem(messages);
  if (problem) return { ok: false, problem: `fail: ${problem}` };
  return { ok: true, value: freezeJson(messages) };
}

/**
 * The transcript's invariant: a tool message directly follows an assistant message with tool
 * calls and holds exactly one result for each of its calls (no other); an assistant message
 * with calls is directly followed by its tool message.
 */
function invariantProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const before = messages[i - 1];
    if (message.role === "tool") {
      const ids =
        before?.role === "assistant"
          ? before.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []))
          : [];
      if (ids.length === 0) {
        return `[${i}]: a tool message must directly follow the assistant message whose calls it answers (drop the two together)`;
      }
      const answered = message.results.map((result) => result.toolCallId);
      const extra = answered.find((id, at) => !ids.includes(id) || answered.indexOf(id) !== at);
      if (extra !== undefined) {
        return `[${i}]: the result for call ${extra} answers no call of the assistant message before it, or answers it twice`;
      }
      const missing = ids.find((id) => !answered.includes(id));
      if (missing !== undefined) return `[${i}]: call ${missing} has no result`;
      continue;
    }
    if (
      message.role === "assistant" &&
      message.parts.some((part) => part.type === "tool-call") &&
      messages[i + 1]?.role !== "tool"
    ) {
      return `[${i}]: the assistant message's tool calls must be followed by their tool message`;
    }
  }
  return undefined;
}
