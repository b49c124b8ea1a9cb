import { messageOf, PolicyError } from "../errors.js";
import type { Tool } from "../types/tool.js";
import { andThen, later, type MaybePromise } from "../util/maybe-promise.js";
import { shortForm } from "../util/policy-call.js";
import { completeArgs } from "./complete-args.js";
import { formatIssues } from "./schema.js";
import { jsonData } from "./tool-output.js";

/**
 * How much args text the gate reads. A call over a limit is invalid (the model reads which
 * limit), never a crash later when the args are serialized.
 */
export interface ArgsLimits {
  /** Bytes of args text (UTF-8); default 1,000,000. */
  maxBytes: number;
  /** Nesting depth of objects and arrays; default 64. */
  maxDepth: number;
}

/** The defaults: 1 MB of args text, nesting depth 64. */
export const DEFAULT_ARGS_LIMITS: ArgsLimits = Object.freeze({ maxBytes: 1_000_000, maxDepth: 64 });

/** Args in the model's form (frozen JSON data), or why there are none. */
export type ArgsText =
  | { ok: true; args: unknown }
  | { ok: false; problem: "json" | "limit"; message: string };

/**
 * Reads the model's args text: within the limits, parsed so that `__proto__` and
 * `constructor.prototype` keys are dropped, and frozen, so nothing that sees the args later
 * (hooks, policy, listeners) can change them in place. An empty text means "no args" (`{}`).
 */
export function readArgsText(text: string, limits: ArgsLimits): ArgsText {
  if (text.trim() === "") return { ok: true, args: Object.freeze({}) };
  const tooBig = utf8Length(text, limits.maxBytes) > limits.maxBytes;
  if (tooBig) {
    return fail("limit", `they are larger than the limit of ${limits.maxBytes} bytes`);
  }
  if (nestingDepth(text, limits.maxDepth) > limits.maxDepth) {
    return fail("limit", `they are nested deeper than the limit of ${limits.maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = mayHoldPrototypeKeys(text) ? JSON.parse(text, dropPrototypeKeys) : JSON.parse(text);
  } catch (error) {
    return fail("json", messageOf(error));
  }
  return { ok: true, args: freezeJson(value) };
}

/**
 * Turns args that user code gave (a hook's rewrite, a human's edit) into the model's form: the
 * same JSON round trip and limits as the model's own args, so the value is data, not a
 * reference the giver can still change. Values JSON cannot carry are refused.
 */
export function argsFromValue(value: unknown, limits: ArgsLimits): ArgsText {
  // What JSON would silently turn into {} (a Map, a Set, bytes) or drop is refused, never run.
  let data: unknown = value;
  if (typeof value === "object" && value !== null) {
    const read = jsonData(value, "args");
    if (!read.ok) {
      return "threw" in read
        ? fail("json", `they cannot be written as JSON (${messageOf(read.threw)})`)
        : fail("json", `they cannot be written as JSON: they hold ${read.problem}`);
    }
    data = read.value;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    return fail("json", `they cannot be written as JSON (${messageOf(error)})`);
  }
  if (text === undefined) return fail("json", `${shortForm(value)} cannot be written as JSON`);
  return readArgsText(text, limits);
}

function fail(problem: "json" | "limit", message: string): ArgsText {
  return { ok: false, problem, message };
}

/**
 * What checking args against a tool's schema gave: the args completed with the schema's
 * defaults (model form, frozen: what every judge sees) and the schema's output for them (what
 * `execute` gets), or the issues.
 */
export type CheckedArgs =
  | { ok: true; args: unknown; parsed: unknown }
  | { ok: false; message: string };

/**
 * Checks args (in the model's form) against the tool's input schema: first completed with the
 * defaults of its JSON Schema (`completeArgs`), then validated. `args` are the completed args,
 * what the gate judges; `parsed` is the schema's output for exactly those args (transforms and
 * coercions applied), what `execute` gets, and nothing else. A schema that throws or answers
 * with something that is not a validation result is the tool definition's fault: `PolicyError`.
 */
export function checkArgs(tool: Tool<any>, given: unknown): MaybePromise<CheckedArgs> {
  const args = completeArgs(tool.inputSchema, given);
  const checked = validateArgs(tool, args);
  if (args === given) return checked;
  return andThen(checked, (outcome) =>
    outcome.ok
      ? outcome
      : andThen(validateArgs(tool, given), (bare) => blameDefault(tool, outcome, bare)),
  );
}

/**
 * Completed args the schema rejects while it takes them without the defaults: a default its own
 * schema refuses (`z.number().min(10).default(5)`), which zod would hand `execute` unchecked.
 * That is the tool definition's fault, not the model's: `PolicyError`, naming the issues.
 */
function blameDefault(
  tool: Tool<any>,
  completed: CheckedArgs & { ok: false },
  bare: CheckedArgs,
): CheckedArgs {
  if (!bare.ok) return completed;
  throw new PolicyError(
    `the input schema of tool ${tool.name} gives a default that it rejects itself (${completed.message}); make each default a value its field accepts`,
    "input.validate",
    tool.name,
  );
}

/** Validates args exactly as given with the tool's schema. */
function validateArgs(tool: Tool<any>, args: unknown): MaybePromise<CheckedArgs> {
  let result: unknown;
  try {
    result = tool.input["~standard"].validate(args);
  } catch (error) {
    throw schemaThrew(tool, error);
  }
  if (result instanceof Promise) {
    return later(
      result,
      (settled) => toChecked(tool, args, settled),
      (error: unknown) => {
        throw schemaThrew(tool, error);
      },
    );
  }
  return toChecked(tool, args, result);
}

function toChecked(tool: Tool<any>, args: unknown, result: unknown): CheckedArgs {
  if (typeof result !== "object" || result === null) {
    throw new PolicyError(
      `the input schema of tool ${tool.name} answered ${shortForm(result)}; a Standard Schema answers { value } or { issues }`,
      "input.validate",
      tool.name,
    );
  }
  const { issues } = result as { issues?: unknown };
  if (issues === undefined) {
    return { ok: true, args, parsed: (result as { value?: unknown }).value };
  }
  if (!Array.isArray(issues)) {
    throw new PolicyError(
      `the input schema of tool ${tool.name} answered issues that are not an array`,
      "input.validate",
      tool.name,
    );
  }
  return { ok: false, message: formatIssues(issues) || "the schema rejected them" };
}

function schemaThrew(tool: Tool<any>, error: unknown): PolicyError {
  return new PolicyError(
    `the input schema of tool ${tool.name} threw: ${messageOf(error)}. A schema reports bad args as an issue (zod: refine, or ctx.addIssue in a transform), which the model reads; a throw rejects the run`,
    "input.validate",
    tool.name,
    { cause: error },
  );
}

/** What the model is told to do about args the gate turned away. */
const RESEND = "Send the arguments again as one JSON object.";
const FIX = "Fix them and call the tool again.";

/**
 * The problem alone, for the developer: an invalid-args message without the advice to the
 * model that ends it (a thrown error says what went wrong, not what the model should do).
 */
export function withoutAdvice(message: string): string {
  for (const advice of [RESEND, FIX]) {
    if (message.endsWith(`. ${advice}`)) return message.slice(0, -advice.length - 2);
  }
  return message;
}

/** Reads args text and validates it: the one path every model call takes through the gate. */
export function parseArgs(
  tool: Tool<any>,
  text: string,
  limits: ArgsLimits,
): MaybePromise<{ ok: true; args: unknown; parsed: unknown } | { ok: false; message: string }> {
  const read = readArgsText(text, limits);
  if (!read.ok) {
    return read.problem === "json"
      ? {
          ok: false,
          message: `invalid JSON in the arguments for tool ${tool.name}: ${read.message}. ${RESEND}`,
        }
      : invalidArgs(tool, read.message, RESEND);
  }
  return andThen(checkArgs(tool, read.args), (checked) =>
    checked.ok ? checked : invalidArgs(tool, checked.message, FIX),
  );
}

function invalidArgs(tool: Tool<any>, problem: string, advice: string) {
  return {
    ok: false as const,
    message: `invalid arguments for tool ${tool.name}: ${problem}. ${advice}`,
  };
}

/**
 * The UTF-8 length of a text, counted only as far as needed: a text of `n` UTF-16 units has
 * at most `3n` bytes, so short texts are not counted at all.
 */
function utf8Length(text: string, limit: number): number {
  if (text.length * 3 <= limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isPair(text, i)) {
      bytes += 4;
      i++;
    } else bytes += 3; // a lone surrogate is written as U+FFFD, 3 bytes
    if (bytes > limit) return bytes;
  }
  return bytes;
}

/** Whether the UTF-16 units at `i` and `i + 1` are a surrogate pair (one character, 4 bytes in UTF-8). */
function isPair(text: string, i: number): boolean {
  const high = text.charCodeAt(i);
  const low = text.charCodeAt(i + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** The deepest nesting of `{` and `[` outside strings, counted until it passes `limit`. */
function nestingDepth(text: string, limit: number): number {
  if (text.length <= limit) return 0; // too short to nest deeper than the limit
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}

/** Whether a JSON text may hold a `__proto__` or `constructor` key, spelled out or escaped. */
function mayHoldPrototypeKeys(text: string): boolean {
  return text.includes("__proto__") || text.includes("constructor") || text.includes("\\u");
}

/** A `JSON.parse` reviver that drops `__proto__` keys and the `prototype` key of `constructor` objects. */
function dropPrototypeKeys(key: string, value: unknown): unknown {
  if (key === "__proto__") return undefined;
  if (
    key === "constructor" &&
    typeof value === "object" &&
    value !== null &&
    Object.hasOwn(value, "prototype")
  ) {
    delete (value as { prototype?: unknown }).prototype;
  }
  return value;
}

/** Freezes parsed JSON data all the way down (its depth is already within the limit). */
export function freezeJson<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (const item of value) freezeJson(item);
  else for (const key in value) freezeJson((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
