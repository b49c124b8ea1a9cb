import { describeValue } from "../errors.js";
import type { PostToolCallVerdict, PreToolCallVerdict } from "../types/hooks.js";
import { closest } from "../util/option-keys.js";
import { isPlainObject } from "../util/values.js";

/** What a verdict key may hold; `undefined` always means "not given". */
export type KeyType = "boolean" | "string" | "boolean | string" | "any";

const PRE_CALL_KEYS: Readonly<Record<keyof PreToolCallVerdict, KeyType>> = {
  stop: "boolean",
  stopReason: "string",
  block: "boolean | string",
  confirm: "boolean",
  args: "any",
  result: "any",
};

/** Words other libraries (or a slip of the mind) use for a verdict key, mapped to ours. */
const PRE_CALL_ALIASES: Readonly<Record<string, string>> = {
  deny: "block",
  denied: "block",
  blocked: "block",
  reject: "block",
  rejected: "block",
  skip: "block",
  abort: "stop",
  halt: "stop",
  reason: "stopReason",
  approve: "confirm",
  approval: "confirm",
  needsApproval: "confirm",
  ask: "confirm",
  input: "args",
  arguments: "args",
  output: "result",
  value: "result",
  decision: "block or confirm (a policy decision belongs in policy.decideToolCall)",
};

const POST_CALL_KEYS: Readonly<Record<keyof PostToolCallVerdict, KeyType>> = {
  stop: "boolean",
  stopReason: "string",
  block: "boolean | string",
  output: "any",
};

/** Words other libraries use (and the pre-call keys a post-call hook cannot use), mapped to ours. */
const POST_CALL_ALIASES: Readonly<Record<string, string>> = {
  deny: "block",
  denied: "block",
  blocked: "block",
  reject: "block",
  rejected: "block",
  tripwireTriggered: "block or stop",
  abort: "stop",
  halt: "stop",
  reason: "stopReason",
  result: "output",
  value: "output",
  replace: "output",
  redact: "output",
  outputInfo: "output",
  args: "output (the call already ran: a post-call hook sees its output and may replace it)",
  confirm: "block (the call already ran: a post-call hook may block or replace its output)",
  approve: "block (the call already ran: a post-call hook may block or replace its output)",
  decision: "block or output",
};

/**
 * Reads a pre-call hook's answer, failing closed: `undefined` (no opinion) or a plain object
 * whose keys are all known and hold their documented types. Anything else — `null`, an array,
 * `{ deny: true }`, `{ confirm: "yes" }` — is a problem named in the returned text, never a
 * verdict that lets a call through. Only own keys are read, once, into a fresh object.
 */
export function readPreCallVerdict(answer: unknown): VerdictRead<PreToolCallVerdict> {
  return readVerdict(answer, PRE_CALL_KEYS, PRE_CALL_ALIASES);
}

/**
 * Reads a post-call hook's answer with the same rules as `readPreCallVerdict`: `undefined` or
 * a plain object with only `output`, `block`, `stop` and `stopReason`, each of its type.
 */
export function readPostCallVerdict(answer: unknown): VerdictRead<PostToolCallVerdict> {
  return readVerdict(answer, POST_CALL_KEYS, POST_CALL_ALIASES);
}

/** A verdict read: the verdict (`undefined`: no opinion), or the problem with the answer. */
export type VerdictRead<V> = { ok: true; verdict: V | undefined } | { ok: false; problem: string };

export function readVerdict<V>(
  answer: unknown,
  keys: Readonly<Record<string, KeyType>>,
  aliases: Readonly<Record<string, string>>,
): VerdictRead<V> {
  if (answer === undefined) return { ok: true, verdict: undefined };
  if (!isPlainObject(answer)) {
    return {
      ok: false,
      problem: `returned ${kindOfAnswer(answer)}; return undefined or a plain verdict object with ${keyList(keys)}`,
    };
  }
  const verdict: Record<string, unknown> = {};
  for (const key of Object.keys(answer)) {
    if (!Object.hasOwn(keys, key)) {
      const near = Object.hasOwn(aliases, key) ? aliases[key] : closest(key, Object.keys(keys));
      const hint = near ? ` (did you mean ${near}?)` : "";
      return {
        ok: false,
        problem: `returned a verdict with the unknown key \`${key}\`${hint}; a verdict has only ${keyList(keys)}`,
      };
    }
    const expected = keys[key]!;
    const value = answer[key];
    if (value === undefined) continue;
    if (!hasType(value, expected)) {
      return {
        ok: false,
        problem: `returned \`${key}: ${shown(value)}\`; \`${key}\` must be ${expected === "boolean | string" ? "a boolean or a string" : `a ${expected}`}`,
      };
    }
    verdict[key] = value;
  }
  if (verdict.stopReason !== undefined && verdict.stop !== true) {
    // A reason without the stop would let the call go on as if nothing was said.
    return {
      ok: false,
      problem:
        "returned `stopReason` without `stop: true`; add stop: true to stop the run, or leave stopReason out",
    };
  }
  return { ok: true, verdict: verdict as V };
}

/** "null", "array", "a Verdict instance (not a plain object)", … */
function kindOfAnswer(answer: unknown): string {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    return describeValue(answer);
  }
  const name = (Object.getPrototypeOf(answer) as { constructor?: { name?: unknown } }).constructor
    ?.name;
  const described =
    typeof name === "string" && name !== "" && name !== "Object"
      ? `a ${name} instance`
      : "an object with another object as its prototype";
  return `${described} (not a plain object)`;
}

function hasType(value: unknown, expected: KeyType): boolean {
  switch (expected) {
    case "any":
      return true;
    case "boolean | string":
      return typeof value === "boolean" || typeof value === "string";
    default:
      return typeof value === expected;
  }
}

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  return describeValue(value);
}

function keyList(keys: Readonly<Record<string, KeyType>>): string {
  return Object.keys(keys)
    .map((key) => `\`${key}\``)
    .join(", ");
}

/**
 * The text the model reads for a hook's `block`: its own when it gave a non-empty string, else
 * "the call to pay was blocked" (`what` and `toolName`, joined only then). `undefined` when the
 * verdict does not block.
 */
export function blockMessage(
  block: boolean | string | undefined,
  what: "the call to" | "the output of",
  toolName: string,
): string | undefined {
  if (block === undefined || block === false) return undefined;
  return typeof block === "string" && block !== "" ? block : `${what} ${toolName} was blocked`;
}
