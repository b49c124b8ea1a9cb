/**
 * JSON with object keys sorted at every level, so equal data always gives equal text. Every
 * own enumerable key is data — `__proto__` included — so nothing in a signed or digested value
 * can change unseen. `undefined` members are dropped and non-finite numbers become `null`, as
 * `JSON.stringify` does; `toJSON` is honoured. Throws on values JSON cannot carry (BigInt, cycles).
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? "null";
}

function write(value: unknown, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      throw new TypeError("canonicalJson: a BigInt cannot be written as JSON");
    case "object":
      break;
    default:
      return undefined; // undefined, functions and symbols, as JSON.stringify drops them
  }
  if (value === null) return "null";
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return write((value as { toJSON(): unknown }).toJSON(), ancestors);
  }
  if (ancestors.has(value)) throw new TypeError("canonicalJson: the value has a cycle");
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item) => write(item, ancestors) ?? "null").join(",")}]`;
  } else {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const item = write((value as Record<string, unknown>)[key], ancestors);
      if (item !== undefined) members.push(`${JSON.stringify(key)}:${item}`);
    }
    text = `{${members.join(",")}}`;
  }
  ancestors.delete(value);
  return text;
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
