import { isPlainObject, kindOf } from "../util/values.js";
import type { UIMessageInput } from "./ui-message.js";

/** What a request to the chat route asks, once read and checked. */
export interface ChatRequest {
  /** The chat's id (`useChat`'s `id`). */
  chatId: string;
  messages: UIMessageInput[];
}

/** A request the chat route answers with an error status and a text saying why; nothing ran. */
export class ChatRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ChatRefusal";
  }
}

const TRIGGERS = new Set(["submit-message", "regenerate-message"]);
const MAX_CHAT_ID = 256;

/**
 * Reads `useChat`'s POST (`{ id, messages, trigger, messageId }`, plus the transport's own
 * `body` fields, which are left alone), within `maxBytes`.
 */
export async function readChatRequest(request: Request, maxBytes: number): Promise<ChatRequest> {
  if (request.method !== "POST")
    throw new ChatRefusal(405, `the chat takes POST, not ${request.method}`);
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new ChatRefusal(
      415,
      `the chat takes application/json, not ${type || "a body without a content type"}`,
    );
  }
  const body = parsed(await textWithin(request, maxBytes));
  if (!isPlainObject(body))
    throw new ChatRefusal(400, `the body must be a JSON object, got ${kindOf(body)}`);
  const { id, messages, trigger } = body;
  if (typeof id !== "string" || id === "" || id.length > MAX_CHAT_ID) {
    throw new ChatRefusal(
      400,
      `id must be the chat's id (1 to ${MAX_CHAT_ID} characters), got ${kindOf(id)}`,
    );
  }
  if (trigger !== undefined && !TRIGGERS.has(trigger as string)) {
    throw new ChatRefusal(
      400,
      `trigger must be "submit-message" or "regenerate-message", got ${kindOf(trigger)}`,
    );
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRefusal(
      400,
      `messages must be a non-empty array of UI messages, got ${kindOf(messages)}`,
    );
  }
  messages.forEach((message, i) => {
    if (
      !isPlainObject(message) ||
      typeof message.role !== "string" ||
      !Array.isArray(message.parts)
    ) {
      throw new ChatRefusal(
        400,
        `messages[${i}]: expected a UI message with a role and parts, got ${kindOf(message)}${oldShape(message)}`,
      );
    }
  });
  return { chatId: id, messages: messages as UIMessageInput[] };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ChatRefusal(400, "the body is not valid JSON");
  }
}

/** The body as text, refused (413) as soon as it is longer than `maxBytes`. */
async function textWithin(request: Request, maxBytes: number): Promise<string> {
  const tooBig = () => new ChatRefusal(413, `the body is over ${maxBytes} bytes`);
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (length > maxBytes) throw tooBig();
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooBig();
    }
    pieces.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    bytes.set(piece, offset);
    offset += piece.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A hint for a message of AI SDK 4's shape (`content`, no `parts`). */
export const oldShape = (message: unknown): string =>
  isPlainObject(message) && "content" in message && !("parts" in message)
    ? " (a `content` message of AI SDK 4: useChat of AI SDK 5 and later sends `parts`)"
    : "";
