import type { AnswerHead } from "./provider-errors.js";

/** What a JSON answer must be for an adapter to read it. */
export interface AnswerShape {
  /** Its name in error messages, e.g. "a chat completion (JSON with `choices`)". */
  name: string;
  /** Whether a parsed JSON object is one. */
  test(body: Record<string, unknown>): boolean;
}

/** Any JSON object: the shape when an adapter names none. */
export const ANY_OBJECT: AnswerShape = { name: "a JSON object", test: () => true };

/** What an event stream is called in error messages. */
export const EVENT_STREAM = "an event stream (text/event-stream)";

/** A response's status and content type. */
export const answerHead = (response: Response): AnswerHead => ({
  status: response.status,
  contentType: response.headers.get("content-type"),
});

/** Whether a response is server-sent events, by its content type. */
export const isEventStream = (response: Response): boolean =>
  response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";

/** The parsed body when it is a JSON object of the shape, else `undefined`. */
export function readShape(text: string, shape: AnswerShape): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  return isObject && shape.test(value as Record<string, unknown>)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The first `limit` characters of a body (about; whole chunks are read), then the connection is
 * let go: enough to say what a wrong answer was, without reading one that never ends.
 */
export async function readStart(response: Response, limit = 64 * 1024): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
    return text;
  } finally {
    reader.cancel().catch(() => {});
  }
}
