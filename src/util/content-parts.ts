import type { ImagePart, Message, ToolContentPart, UserPart } from "../types/messages.js";
import { mediaUrl, readMedia } from "./media.js";
import { closest } from "./option-keys.js";
import { isPlainObject, kindOf } from "./values.js";

const CONTENT = Symbol.for("tollgate.toolContent");

/** What `toolContent(...)` returns: a tool's answer as parts the model sees (text and images). */
export interface ToolContent {
  readonly [CONTENT]: true;
  readonly parts: readonly ToolContentPart[];
}

/**
 * A tool's answer as text and images, for a model that should look at what the tool saw (a
 * screenshot, a chart). Return it from `execute`; the parts are checked when the tool returns,
 * bytes are stored as base64 data URLs, and the result's `output` is the text parts joined.
 *
 * @example
 * execute: async ({ url }) => toolContent([
 *   { type: "text", text: `Screenshot of ${url}` },
 *   { type: "image", image: await screenshot(url) }, // a Uint8Array of PNG bytes
 * ])
 */
export function toolContent(parts: readonly ToolContentPart[]): ToolContent {
  return Object.freeze({ [CONTENT]: true as const, parts });
}

/** Whether a value was made by `toolContent(...)`. */
export const isToolContent = (value: unknown): value is ToolContent =>
  typeof value === "object" && value !== null && (value as ToolContent)[CONTENT] === true;

/** Parts as they are stored, or what is wrong with them. */
export type StoredParts<Part> = { ok: true; parts: Part[] } | { ok: false; problem: string };

const KEYS: Record<string, readonly string[]> = {
  text: ["type", "text"],
  image: ["type", "image", "mediaType"],
  file: ["type", "data", "mediaType", "filename"],
};

/** Habits from other APIs, and what to write here instead. */
const OTHER_SHAPES: Record<string, string> = {
  image_url: `{ type: "image", image: url }`,
  input_image: `{ type: "image", image: url }`,
  input_text: `{ type: "text", text }`,
  input_file: `{ type: "file", data, mediaType }`,
  document: `{ type: "file", data, mediaType }`,
  media: `{ type: "image", image } or { type: "file", data, mediaType }`,
};

/**
 * Checks parts and returns them as JSON can store them: each a plain object of a known type
 * with only its own keys, text a string, every image and file source read by `readMedia` and
 * kept as a URL string (bytes as a base64 data URL), `mediaType` filled in where it is known.
 */
export function storedParts<Part extends UserPart>(
  value: unknown,
  types: readonly Part["type"][],
): StoredParts<Part> {
  if (!Array.isArray(value)) return { ok: false, problem: `expected an array of parts` };
  if (value.length === 0) return { ok: false, problem: "it has no parts" };
  const parts: Part[] = [];
  for (let i = 0; i < value.length; i++) {
    const part = storedPart(value[i], types);
    if (typeof part === "string") return { ok: false, problem: `part ${i}: ${part}` };
    parts.push(part as Part);
  }
  return { ok: true, parts };
}

function storedPart(part: unknown, types: readonly string[]): UserPart | string {
  if (!isPlainObject(part)) return `expected a part object, got ${kindOf(part)}`;
  const type = part.type;
  if (typeof type !== "string" || !types.includes(type)) {
    const instead = typeof type === "string" ? OTHER_SHAPES[type] : undefined;
    const expected = types.map((t) => `"${t}"`).join(", ");
    return instead
      ? `type "${type}" is another API's shape; write ${instead}`
      : `type must be one of ${expected}, got ${JSON.stringify(type) ?? "undefined"}`;
  }
  const known = KEYS[type] as readonly string[];
  for (const key of Object.keys(part)) {
    if (known.includes(key)) continue;
    const near = key === "mimeType" ? "mediaType" : closest(key, known);
    return `unknown key \`${key}\` in ${/^[aeiou]/.test(type) ? "an" : "a"} ${type} part${near ? `; did you mean \`${near}\`?` : ""}`;
  }
  if (type === "text") {
    return typeof part.text === "string"
      ? { type: "text", text: part.text }
      : `a text part's text must be a string, got ${kindOf(part.text)}`;
  }
  if (type === "image") {
    const read = readMedia(part.image, part.mediaType, true);
    if (!read.ok) return `image: ${read.problem}`;
    const { mediaType } = read.media;
    const image: ImagePart = { type: "image", image: mediaUrl(read.media) };
    if (mediaType !== undefined) image.mediaType = mediaType;
    return image;
  }
  if (part.mediaType === undefined) return "a file part needs a mediaType";
  if (part.filename !== undefined && typeof part.filename !== "string") {
    return `a file part's filename must be a string, got ${kindOf(part.filename)}`;
  }
  const read = readMedia(part.data, part.mediaType, false);
  if (!read.ok) return `file: ${read.problem}`;
  return {
    type: "file",
    data: mediaUrl(read.media),
    mediaType: read.media.mediaType as string,
    ...(part.filename !== undefined && { filename: part.filename }),
  };
}

/**
 * A message of `run()`'s input as the transcript stores it: a user message's parts checked and
 * stored (bytes as base64 data URLs), a tool result's content parts too; anything else as it is.
 * Throws a `TypeError` that names the message and the part.
 */
export function storedMessage(message: Message, index: number): Message {
  if (message.role === "user") {
    const { content } = message;
    if (typeof content === "string") return message;
    const stored = storedParts<UserPart>(content, ["text", "image", "file"]);
    if (!stored.ok) {
      throw new TypeError(
        `run(): message ${index} (user): content must be a string or an array of text, image and file parts; ${stored.problem}`,
      );
    }
    return { role: "user", content: stored.parts };
  }
  if (message.role !== "tool" || !Array.isArray(message.results)) return message;
  return {
    role: "tool",
    results: message.results.map((result) => {
      if (result?.content === undefined) return result;
      const stored = storedParts<ToolContentPart>(result.content, ["text", "image"]);
      if (!stored.ok) {
        throw new TypeError(
          `run(): message ${index} (tool): the content of result ${result.toolCallId}: ${stored.problem}`,
        );
      }
      return { ...result, content: stored.parts };
    }),
  };
}
