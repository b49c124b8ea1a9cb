/**
 * JSON with object keys sorted at every level, so equal data always gives equal text.
 * `undefined` members are dropped, as JSON.stringify drops them.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort())
      sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text) as Uint8Array<ArrayBuffer>;

const hex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

/** SHA-256 of a text, as hex (Web Crypto: Node, Deno, Bun and edge runtimes alike). */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", bytes(text)));
}

/** HMAC-SHA-256 of a text under a key, as hex. */
export async function hmacHex(key: string | Uint8Array, text: string): Promise<string> {
  const raw = typeof key === "string" ? bytes(key) : new Uint8Array(key);
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    raw,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", cryptoKey, bytes(text)));
}

/** Compares two hex texts in time that does not depend on where they differ. */
export function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The digest an approval is bound to: who asked (run, call), for which tool, with which args. */
export function approvalDigest(runId: string, toolCallId: string, toolName: string, args: unknown) {
  return sha256Hex(canonicalJson([runId, toolCallId, toolName, args]));
}
