/**
 * Media (an image or a file) as adapters send it: a URL the provider fetches itself, or the
 * bytes as base64 with their media type.
 */
export type Media =
  | { kind: "url"; url: string; mediaType?: string }
  | { kind: "bytes"; base64: string; mediaType: string };

/** A media read from what a user wrote, or what is wrong with it. */
export type ReadMedia = { ok: true; media: Media } | { ok: false; problem: string };

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;
const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*?);base64,([A-Za-z0-9+/]*={0,2})$/;

/** Whether a value is a media type such as `image/png` or `application/pdf`. */
export const isMediaType = (value: unknown): value is string =>
  typeof value === "string" && MEDIA_TYPE.test(value);

/** The base64 text of bytes, without `Buffer` (so it runs on edge runtimes too). */
export function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

/** The bytes of base64 text. */
export function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const SIGNATURES: ReadonlyArray<[string, number[], number]> = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0],
  ["image/jpeg", [0xff, 0xd8, 0xff], 0],
  ["image/gif", [0x47, 0x49, 0x46, 0x38], 0],
  ["image/webp", [0x57, 0x45, 0x42, 0x50], 8], // "WEBP" after "RIFF" and the size
];

/** The type of PNG, JPEG, GIF or WebP bytes, read from their first bytes; else `undefined`. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  for (const [type, signature, offset] of SIGNATURES) {
    if (signature.every((byte, i) => bytes[offset + i] === byte)) return type;
  }
  return undefined;
}

/**
 * Reads a media source: a `Uint8Array` (its type from `mediaType`, or for an image from its
 * first bytes), a base64 `data:` URL, or an `http(s)` URL (a string or a `URL`). A `mediaType`
 * that contradicts a data URL's own is refused, as is anything else, with what to write instead.
 */
export function readMedia(source: unknown, mediaType: unknown, image: boolean): ReadMedia {
  if (mediaType !== undefined && !isMediaType(mediaType)) {
    return fail(`mediaType must be a media type such as "image/png", got ${shown(mediaType)}`);
  }
  const read = readSource(source, mediaType, image);
  if (!read.ok) return read;
  const type = read.media.mediaType;
  if (image && type !== undefined && !type.toLowerCase().startsWith("image/")) {
    return fail(`an image's media type must be image/…, got "${type}" (send it as a file part)`);
  }
  return read;
}

function readSource(source: unknown, mediaType: string | undefined, image: boolean): ReadMedia {
  if (source instanceof Uint8Array) {
    const type = mediaType ?? (image ? sniffImageType(source) : undefined);
    if (type === undefined) {
      return fail(
        image
          ? "the bytes are not PNG, JPEG, GIF or WebP; give their mediaType"
          : "bytes need a mediaType",
      );
    }
    return { ok: true, media: { kind: "bytes", base64: base64Of(source), mediaType: type } };
  }
  const text = source instanceof URL ? source.href : source;
  if (typeof text !== "string") {
    return fail(`expected a URL, a base64 data URL or a Uint8Array, got ${shown(source)}`);
  }
  if (text.startsWith("data:")) {
    const match = DATA_URL.exec(text);
    if (!match) {
      return fail(`a data URL must be base64: "data:<media type>;base64,<data>"`);
    }
    const own = match[1] as string;
    if (!isMediaType(own)) return fail(`the data URL's media type "${own}" is not one`);
    if (mediaType !== undefined && mediaType.toLowerCase() !== own.toLowerCase()) {
      return fail(`mediaType "${mediaType}" contradicts the data URL's "${own}"`);
    }
    return { ok: true, media: { kind: "bytes", base64: match[3] as string, mediaType: own } };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(
      `${shown(text)} is not a URL; pass bytes as a Uint8Array, or base64 text as "data:<media type>;base64,<data>"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(`only http(s) and base64 data URLs are supported, got a ${url.protocol} URL`);
  }
  return { ok: true, media: { kind: "url", url: text, ...(mediaType && { mediaType }) } };
}

/** The stored form of a media: its URL, or a base64 data URL. */
export const mediaUrl = (media: Media): string =>
  media.kind === "url" ? media.url : `data:${media.mediaType};base64,${media.base64}`;

const fail = (problem: string): ReadMedia => ({ ok: false, problem });

const shown = (value: unknown): string => {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof ArrayBuffer) return "an ArrayBuffer (wrap it: new Uint8Array(buffer))";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
};
