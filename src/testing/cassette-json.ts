/** A JSON value, as a cassette holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * `value` as plain JSON, the form a cassette keeps: bytes become `{ "$base64": … }`, a `URL` its
 * `href`, a `Date` its ISO text; `undefined` members are dropped. Anything else that JSON cannot
 * hold (a function, a symbol, a bigint, a cycle) is a `TypeError` naming its path.
 */
export function toJson(value: unknown, path = "$", seen = new Set<object>()): Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cassette: ${path} is ${value}, not JSON`);
    return value;
  }
  if (typeof value !== "object") {
    throw new TypeError(`cassette: ${path} is ${typeof value}, which a cassette cannot hold`);
  }
  if (value instanceof Uint8Array) return { $base64: Buffer.from(value).toString("base64") };
  if (value instanceof URL) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (seen.has(value)) throw new TypeError(`cassette: ${path} refers to itself`);
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item, index) =>
        toJson(item === undefined ? null : item, `${path}[${index}]`, seen),
      );
    }
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = toJson(item, `${path}.${key}`, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** JSON text with object keys sorted at every depth and two-space indents, so git diffs stay small. */
export function stableJson(value: Json): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] as Json);
  return out;
}
