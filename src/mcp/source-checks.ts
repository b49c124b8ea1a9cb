import { shownValue } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";

/** The `stderr` values a stdio source takes (Node's `IOType`s). */
const STDERR = ["inherit", "ignore", "pipe", "overlapped"];

/** Checks a stdio source's keys before anything is started: each a `TypeError` naming the key. */
export function checkStdioSource(source: Record<string, unknown>): void {
  const { command, args, env, cwd, stderr, maxBufferSize } = source;
  if (typeof command !== "string" || command === "") {
    throw new TypeError(
      `mcpTools(): command must be a non-empty string, got ${shownValue(command)}`,
    );
  }
  if (args !== undefined && (!Array.isArray(args) || !args.every((a) => typeof a === "string"))) {
    throw new TypeError(`mcpTools(): args must be an array of strings, got ${kindOf(args)}`);
  }
  checkStringRecord("env", env);
  if (cwd !== undefined && typeof cwd !== "string") {
    throw new TypeError(`mcpTools(): cwd must be a string (a folder), got ${shownValue(cwd)}`);
  }
  if (stderr !== undefined && !STDERR.includes(stderr as string)) {
    throw new TypeError(
      `mcpTools(): stderr must be ${STDERR.map((s) => `"${s}"`).join(", ")}; got ${shownValue(stderr)}`,
    );
  }
  if (
    maxBufferSize !== undefined &&
    !(Number.isSafeInteger(maxBufferSize) && (maxBufferSize as number) > 0)
  ) {
    throw new TypeError(
      `mcpTools(): maxBufferSize must be a positive whole number of bytes (the largest message the server may send; default 10 MiB), got ${shownValue(maxBufferSize)}`,
    );
  }
}

/** Checks a Streamable HTTP source: an http(s) URL and string headers. Returns the URL. */
export function checkHttpSource(source: Record<string, unknown>): URL {
  const { url: given, headers } = source;
  if (typeof given !== "string" && !(given instanceof URL)) {
    throw new TypeError(`mcpTools(): url must be a string or a URL, got ${shownValue(given)}`);
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new TypeError(`mcpTools(): url ${JSON.stringify(String(given))} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`mcpTools(): url must be http: or https:, got ${url.protocol}`);
  }
  checkStringRecord("headers", headers);
  return url;
}

function checkStringRecord(key: string, value: unknown): void {
  if (value === undefined) return;
  const proto = typeof value === "object" && value !== null ? Object.getPrototypeOf(value) : 0;
  if ((proto !== Object.prototype && proto !== null) || Array.isArray(value)) {
    throw new TypeError(`mcpTools(): ${key} must be an object of strings, got ${kindOf(value)}`);
  }
  for (const [name, item] of Object.entries(value as object)) {
    if (typeof item !== "string") {
      throw new TypeError(`mcpTools(): ${key}.${name} must be a string, got ${shownValue(item)}`);
    }
  }
}
