import { createHash } from "node:crypto";

/** How many characters of an id's readable slug a file name keeps. */
const SLUG_LENGTH = 32;

/**
 * The file name (without extension) for an id: a lowercase readable slug of the id, then the
 * SHA-256 hex of the exact id (its UTF-16 code units, so even ids with lone surrogates differ).
 * Distinct ids never share a name, also on case-insensitive file systems (the hash tells "Run-1"
 * from "run-1"), and every name is at most 97 ASCII characters, far below the 255-byte limit.
 *
 * @example
 * fileNameOf("Run-1"); // "run-1-" + 64 hex digits
 */
export function fileNameOf(id: string): string {
  const hash = createHash("sha256").update(Buffer.from(id, "utf16le")).digest("hex");
  const slug = slugOf(id);
  return slug === "" ? hash : `${slug}-${hash}`;
}

/** The id lowercased, with every run of characters other than a-z and 0-9 turned into one "-". */
function slugOf(id: string): string {
  return id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_LENGTH)
    .replace(/^-+|-+$/g, "");
}
