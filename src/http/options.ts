import { checkKeys } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";

/** Says what is wrong with one option's value (`"must be …, got …"`), or `undefined` when it is fine. */
export type OptionRule = (value: unknown) => string | undefined;

/** The value as a message shows it: numbers and short strings as they are, the rest by kind. */
const shown = (value: unknown): string =>
  typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : typeof value === "string" && value.length <= 60
      ? JSON.stringify(value)
      : kindOf(value);

/** A rule that accepts `undefined` and whatever `test` accepts. */
export const optional =
  (test: (value: unknown) => boolean, must: string): OptionRule =>
  (value) =>
    value === undefined || test(value) ? undefined : `must be ${must}, got ${shown(value)}`;

/** A rule for an optional whole number of at least `min`. */
export const wholeNumberAtLeast = (min: number): OptionRule =>
  optional(
    (value) => Number.isSafeInteger(value) && (value as number) >= min,
    `a whole number >= ${min}`,
  );

const TOKEN = /^[!#$%&'*+.^_`|~\dA-Za-z-]+$/;

/** What is wrong with `headers`; the values are never shown, since they may hold keys. */
function headersProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof Headers !== "undefined" && value instanceof Headers) {
    return "must be a plain object, got a Headers object; pass Object.fromEntries(headers)";
  }
  if (!isPlainObject(value)) {
    return `must be an object of header names to strings, got ${kindOf(value)}`;
  }
  for (const [name, text] of Object.entries(value)) {
    if (!TOKEN.test(name)) return `has an invalid header name ${JSON.stringify(name)}`;
    if (typeof text !== "string") return `"${name}" must be a string, got ${kindOf(text)}`;
    if (/[\r\n\0]/.test(text)) return `"${name}" must not hold a line break or NUL`;
  }
  return undefined;
}

/** The rules for the options every HTTP adapter takes (`baseURL` has its own check). */
const HTTP_RULES: Record<string, OptionRule> = {
  model: (value) =>
    typeof value === "string" && value.trim() !== "" && value.trim() === value
      ? undefined
      : `must be the model id, a non-empty string without spaces around it, got ${shown(value)}`,
  // The key itself is never shown. Line breaks inside it make `fetch` fail quoting the header.
  apiKey: (value) =>
    value === undefined
      ? undefined
      : typeof value !== "string"
        ? `must be a string, got ${kindOf(value)}`
        : /[\r\n\0]/.test(value.trim())
          ? "holds a line break or NUL inside it; check how the key was read"
          : undefined,
  baseURL: () => undefined, // checked by `resolveBaseURL`, which also reads the environment
  headers: headersProblem,
  fetch: optional((value) => typeof value === "function", "a function like the global `fetch`"),
  timeoutMs: optional(
    (value) => typeof value === "number" && value >= 0,
    "a number of ms >= 0 (0 or Infinity: no timeout)",
  ),
  maxRetries: wholeNumberAtLeast(0),
  settings: optional(isPlainObject, "an object of settings"),
};

/** Other names for options, as other libraries spell them. */
const ALIASES = {
  timeout: "timeoutMs",
  retries: "maxRetries",
  url: "baseURL",
  endpoint: "baseURL",
};

/**
 * Checks an HTTP adapter's options where they enter: an unknown key (with a did-you-mean, so
 * `baseUrl` does not silently call the default API), an empty model, a `fetch`
 * that is not a function, headers that are not strings, a negative timeout or retry count.
 * `rules` adds the adapter's own options. Each problem is a `TypeError` naming the option.
 */
export function checkHttpOptions(
  where: string,
  options: unknown,
  rules: Record<string, OptionRule> = {},
): void {
  const all = { ...HTTP_RULES, ...rules };
  checkKeys(where, options, Object.keys(all), ALIASES);
  const values = options as Record<string, unknown>;
  for (const [key, rule] of Object.entries(all)) {
    const problem = rule(values[key]);
    if (problem) throw new TypeError(`${where}: \`${key}\` ${problem}`);
  }
}
