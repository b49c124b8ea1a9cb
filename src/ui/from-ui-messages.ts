import type { AssistantPart, Message, ToolResult, UserPart } from "tollgate";
import { shownValue } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";
import { oldShape } from "./chat-request.js";

/** Parts a chat shows that are not part of what the model reads. */
const UI_ONLY = new Set([
  "step-start",
  "source-url",
  "source-document",
  "custom",
  "reasoning-file",
]);

/** A tool part's states that say how the call ended; any other is a call still waiting. */
const OUTCOMES = new Set(["output-available", "output-error", "output-denied"]);

/**
 * Converts the messages `useChat` posts (the AI SDK's `UIMessage[]`) into tollgate's transcript:
 * a user message's text and files; an assistant message's steps (split at its `step-start`
 * parts), each one assistant message of text, reasoning and tool calls, then one tool message
 * with each call's outcome (an output, an error text, a human's refusal; a call whose run was
 * stopped before it ended reads so). Data and source parts are the page's own and are left out.
 * Nothing in the history ever runs. Throws a `TypeError` naming the path of what it cannot take:
 * a system message (the system prompt is the loop's `instructions`, set on the server), an
 * unknown part, a field of the wrong type.
 */
export function fromUIMessages(messages: unknown): Message[] {
  if (!Array.isArray(messages)) {
    throw new TypeError(
      `fromUIMessages(): expected an array of UI messages, got ${kindOf(messages)}`,
    );
  }
  const out: Message[] = [];
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (!isPlainObject(message) || !Array.isArray(message.parts)) {
      throw new TypeError(
        `${at}: expected a UI message with \`role\` and \`parts\`, got ${kindOf(message)}${oldShape(message)}`,
      );
    }
    const parts = message.parts as unknown[];
    if (message.role === "user") out.push(userMessage(parts, at));
    else if (message.role === "assistant") out.push(...assistantMessages(parts, at));
    else if (message.role === "system") {
      throw new TypeError(
        `${at}: a system message from the browser is not taken; the system prompt is the loop's \`instructions\`, set on the server`,
      );
    } else {
      throw new TypeError(
        `${at}.role: expected "user" or "assistant", got ${shownValue(message.role)}`,
      );
    }
  });
  return out;
}

function userMessage(parts: unknown[], at: string): Message {
  const content: UserPart[] = [];
  parts.forEach((value, j) => {
    const where = `${at}.parts[${j}]`;
    const part = checkedPart(value, where);
    const type = part.type;
    if (type === "text") content.push({ type: "text", text: text(part, "text", where) });
    else if (type === "file") content.push(filePart(part, where));
    else if (!isUIOnly(type)) throw unknownPart(type, where);
  });
  const only = content.length === 1 ? content[0] : undefined;
  return { role: "user", content: only?.type === "text" ? only.text : content };
}

function filePart(part: Record<string, unknown>, where: string): UserPart {
  const url = text(part, "url", where);
  const mediaType = text(part, "mediaType", where);
  if (mediaType.startsWith("image/") || mediaType === "image") {
    return mediaType.includes("/")
      ? { type: "image", image: url, mediaType }
      : { type: "image", image: url };
  }
  const filename = part.filename;
  if (filename !== undefined && typeof filename !== "string") {
    throw new TypeError(`${where}.filename: expected a string, got ${kindOf(filename)}`);
  }
  return filename === undefined
    ? { type: "file", data: url, mediaType }
    : { type: "file", data: url, mediaType, filename };
}

/** An assistant message's steps: each an assistant message, then a tool message when it called tools. */
function assistantMessages(parts: unknown[], at: string): Message[] {
  const out: Message[] = [];
  let said: AssistantPart[] = [];
  let results: ToolResult[] = [];
  const endStep = () => {
    if (said.length > 0) out.push({ role: "assistant", parts: said });
    if (results.length > 0) out.push({ role: "tool", results });
    said = [];
    results = [];
  };
  parts.forEach((value, j) => {
    const where = `${at}.parts[${j}]`;
    const part = checkedPart(value, where);
    const type = part.type;
    if (type === "step-start") endStep();
    else if (type === "text") {
      const value = text(part, "text", where);
      if (value !== "") said.push({ type: "text", text: value });
    } else if (type === "reasoning") {
      const value = text(part, "text", where);
      if (value !== "") said.push({ type: "reasoning", text: value });
    } else if (type === "dynamic-tool" || type.startsWith("tool-")) {
      const name = type === "dynamic-tool" ? text(part, "toolName", where) : type.slice(5);
      const id = text(part, "toolCallId", where);
      said.push({ type: "tool-call", id, name, args: JSON.stringify(part.input ?? {}) });
      results.push(outcomeOf(part, id, name, where));
    } else if (!isUIOnly(type)) throw unknownPart(type, where);
  });
  endStep();
  return out;
}

/** The result the model read for a finished call of the chat's history. */
function outcomeOf(
  part: Record<string, unknown>,
  toolCallId: string,
  toolName: string,
  where: string,
): ToolResult {
  const state = part.state;
  if (typeof state !== "string" || !OUTCOMES.has(state)) {
    // A call the chat never saw end: its run was stopped (the page's Stop, a closed tab, a crash).
    return { toolCallId, toolName, output: stoppedText(toolName), isError: true };
  }
  if (state === "output-available")
    return { toolCallId, toolName, output: part.output ?? null, isError: false };
  if (state === "output-error") {
    return { toolCallId, toolName, output: text(part, "errorText", where), isError: true };
  }
  const approval = isPlainObject(part.approval) ? part.approval : {};
  const reason =
    typeof approval.reason === "string" && approval.reason !== "" ? `: ${approval.reason}` : "";
  return {
    toolCallId,
    toolName,
    output: `the call to ${toolName} was refused by a human${reason}`,
    isError: true,
  };
}

/** What the model reads for a call of the history that never got its outcome. */
const stoppedText = (toolName: string) =>
  `the call to ${toolName} has no result: the run stopped before it finished (it may or may not have run)`;

const isUIOnly = (type: string) => UI_ONLY.has(type) || type.startsWith("data-");

function checkedPart(part: unknown, where: string): Record<string, unknown> & { type: string } {
  if (!isPlainObject(part) || typeof part.type !== "string") {
    throw new TypeError(`${where}: expected a part with a \`type\`, got ${kindOf(part)}`);
  }
  return part as Record<string, unknown> & { type: string };
}

function text(part: unknown, key: string, where: string): string {
  const value = (part as Record<string, unknown>)[key];
  if (typeof value !== "string")
    throw new TypeError(`${where}.${key}: expected a string, got ${shownValue(value)}`);
  return value;
}

const unknownPart = (type: string, where: string) =>
  new TypeError(
    `${where}: a part of type ${JSON.stringify(type)} is not one a chat message holds (text, file, reasoning, a tool part, step-start, source, data-*)`,
  );
