import { type FilePart, type ImagePart, ProviderError } from "tollgate";
import { bytesOf, type Media, readMedia } from "../util/media.js";

/**
 * The `ProviderError` for a part this provider cannot carry, thrown before any request is sent:
 * a part is never dropped or rewritten behind the caller's back.
 */
export const cannotCarry = (provider: string, what: string): ProviderError =>
  new ProviderError(`${provider} cannot carry ${what}`, { retryable: false, provider });

/**
 * The media of an image or file part, read as `run()` reads it (a part built by hand and given
 * to the adapter directly may still hold bytes or a `URL`); a part that cannot be read is a
 * `ProviderError`.
 */
export function mediaOf(provider: string, part: ImagePart | FilePart): Media {
  const image = part.type === "image";
  const read = readMedia(image ? part.image : part.data, part.mediaType, image);
  if (read.ok) return read.media;
  const kind = image ? "an image" : "a file";
  throw new ProviderError(`${provider} was given ${kind} part it cannot read: ${read.problem}`, {
    retryable: false,
    provider,
  });
}

/** The UTF-8 text of base64 bytes, for providers that take a text file as text. */
export const textOfBase64 = (base64: string): string => new TextDecoder().decode(bytesOf(base64));
