import { isPromise } from "./maybe-promise.js";

/** Errors thrown by a tool's own `execute`, so a policy's `executeTool` rethrowing one is told apart from its own bug. */
const thrownByTools = new WeakSet<object>();

/**
 * Wraps a tool's `execute` so that whatever it throws (or rejects with) is remembered as the
 * tool's own failure. Errors pass through unchanged; only their origin is noted.
 */
export function noteToolErrors<A extends unknown[], R>(
  execute: (...args: A) => R,
): (...args: A) => R {
  return function execute_(this: unknown, ...args: A): R {
    let result: R;
    try {
      result = execute.apply(this, args);
    } catch (error) {
      throw note(error);
    }
    // Noted before anyone awaiting the promise sees the rejection (reactions run in order);
    // the promise itself is handed back as it is, with no extra step.
    if (isPromise(result)) result.then(undefined, note);
    return result;
  };
}

function note(error: unknown): unknown {
  if ((typeof error === "object" && error !== null) || typeof error === "function") {
    thrownByTools.add(error as object);
  }
  return error;
}

/** Whether a tool's own `execute` threw this value (objects only; a thrown string cannot be traced). */
export function isToolError(error: unknown): boolean {
  return typeof error === "object" && error !== null && thrownByTools.has(error);
}
