import { redactKeyShapes } from "../util/key-shapes.js";
import { isSecretKey, REDACTED } from "../util/secret-keys.js";
import type { Json } from "./cassette-json.js";

/** `text` with everything shaped like an API key or a token replaced by `[redacted]`. */
export const redactShapes = (text: string): string => redactKeyShapes(text);

/**
 * Checks `redact` paths: dot-separated keys, `*` for any key or index, e.g.
 * `"settings.user"`, `"messages.*.content"`, `"tools.*.description"`.
 */
export function checkRedactPaths(where: string, paths: unknown): string[][] {
  if (paths === undefined) return [];
  if (!Array.isArray(paths) || paths.some((path) => typeof path !== "string" || path === "")) {
    throw new TypeError(
      `${where}: \`redact\` must be an array of paths such as "settings.user" or "messages.*.content"`,
    );
  }
  return paths.map((path: string) => path.split("."));
}

/**
 * A copy of `value` with credentials replaced by `[redacted]`: every value under a key named
 * like a credential, every text shaped like a key, each value at one of `paths`, and (in a
 * request) every value of `settings.headers`.
 */
export function redactJson(value: Json, paths: readonly string[][], request: boolean): Json {
  let out = scrub(value);
  for (const path of paths) out = atPath(out, path);
  if (request) out = atPath(out, ["settings", "headers", "*"]);
  return out;
}

function scrub(value: Json): Json {
  if (typeof value === "string") return redactShapes(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  const toolCall = value.type === "tool-call";
  for (const [key, item] of Object.entries(value)) {
    if (toolCall && key === "args" && typeof item === "string") {
      // The args a replay hands the tool: a name alone (`"key": "user-1234"`) is data, not a
      // credential; only what is shaped like one, or follows an API key's name, is redacted.
      out[key] = redactKeyShapes(item, { byName: false });
    } else out[key] = isSecretKey(key) && item !== null ? REDACTED : scrub(item);
  }
  return out;
}

/** `value` with what `path` reaches replaced by `[redacted]` (paths that reach nothing are fine). */
function atPath(value: Json, path: readonly string[]): Json {
  if (path.length === 0) return REDACTED;
  if (value === null || typeof value !== "object") return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      head === "*" || head === String(index) ? atPath(item, rest) : item,
    );
  }
  const out: { [key: string]: Json } = { ...value };
  for (const key of Object.keys(out)) {
    if (head === "*" || head === key) out[key] = atPath(out[key] as Json, rest);
  }
  return out;
}
