import { checkKeys } from "./option-keys.js";
import { kindOf } from "./values.js";

const KEYS = ["name", "loop", "approvalTimeoutMs", "onEvent"] as const;
/** Loop options a durable engine keeps itself: the run's state never leaves it. */
const KEPT = ["store", "signingKey", "trustState", "allowReplay"] as const;

/**
 * Checks the options of a durable agent (`dbosAgent`, `restateAgent`): known keys only, a name
 * an engine can carry, the loop's options without those the engine keeps (`kept` says why),
 * a positive approval timeout, a function for `onEvent`.
 */
export function checkDurableOptions(where: string, options: unknown, kept: string): void {
  checkKeys(`${where} options`, options, KEYS);
  const { name, loop, approvalTimeoutMs, onEvent } = options as Record<string, unknown>;
  if (typeof name !== "string" || !/^[\w.-]{1,100}$/.test(name)) {
    throw new TypeError(
      `${where}: name must be 1 to 100 letters, digits, "_", "." or "-", got ${kindOf(name)}`,
    );
  }
  if (typeof loop !== "object" || loop === null) {
    throw new TypeError(`${where}: loop must be the loop's options, got ${kindOf(loop)}`);
  }
  for (const key of KEPT) {
    if ((loop as Record<string, unknown>)[key] !== undefined) {
      throw new TypeError(`${where}: loop.${key} is ${kept}; leave it out`);
    }
  }
  const { handoffs } = loop as { handoffs?: unknown };
  if (Array.isArray(handoffs) && handoffs.length > 0) {
    // Its steps record this loop's model calls and tools; a target's would run again on a replay.
    throw new TypeError(
      `${where}: loop.handoffs is not supported in a durable run yet: the model calls and tools of the agents it hands off to would not be recorded steps, so a replay would run them again; leave it out (an agent as a tool, loop.asTool(), is one recorded tool call)`,
    );
  }
  if (
    approvalTimeoutMs !== undefined &&
    !(
      typeof approvalTimeoutMs === "number" &&
      Number.isFinite(approvalTimeoutMs) &&
      approvalTimeoutMs > 0
    )
  ) {
    throw new TypeError(
      `${where}: approvalTimeoutMs must be a positive number of ms, got ${kindOf(approvalTimeoutMs)}`,
    );
  }
  if (onEvent !== undefined && typeof onEvent !== "function") {
    throw new TypeError(`${where}: onEvent must be a function, got ${kindOf(onEvent)}`);
  }
}

/**
 * Checks `decide()`'s arguments before anything is sent: a run id, the pause's number as
 * `waiting()` gave it, and decisions by key. A wrong pause number would otherwise go where no
 * run reads it.
 */
export function checkDecideArgs(
  where: string,
  runId: unknown,
  pause: unknown,
  decisions: unknown,
): void {
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError(`${where}: runId must be the run's id, got ${kindOf(runId)}`);
  }
  if (!Number.isInteger(pause) || (pause as number) < 0) {
    throw new TypeError(
      `${where}: pause must be the pause's number from waiting() (0, 1, 2…), got ${kindOf(pause)}`,
    );
  }
  if (typeof decisions !== "object" || decisions === null || Array.isArray(decisions)) {
    throw new TypeError(
      `${where}: decisions must be an object of decisions by call key ({ [key]: { approve, digest } }), got ${kindOf(decisions)}`,
    );
  }
}

/**
 * Checks the options of `waiting()` / `result()`: a `timeoutMs` of 0 or more (when given), an
 * `after` that is a pause's number or -1 (when given). Resolves the timeout with its default.
 */
export function checkWaitOptions(
  where: string,
  options: unknown,
  keys: readonly ("timeoutMs" | "after")[],
): { timeoutMs: number | undefined; after: number } {
  checkKeys(`${where} options`, options, keys);
  const { timeoutMs, after } = options as { timeoutMs?: unknown; after?: unknown };
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs >= 0)
  ) {
    throw new TypeError(
      `${where}: timeoutMs must be a number of ms, 0 or more, got ${kindOf(timeoutMs)}`,
    );
  }
  if (after !== undefined && !(Number.isInteger(after) && (after as number) >= -1)) {
    throw new TypeError(
      `${where}: after must be a pause's number from waiting() (or -1 for any), got ${kindOf(after)}`,
    );
  }
  return { timeoutMs: timeoutMs as number | undefined, after: (after as number | undefined) ?? -1 };
}
