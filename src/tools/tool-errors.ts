import { isPromise } from "../util/maybe-promise.js";

/** Errors thrown by a tool's own `execute`, so a policy's `executeTool` rethrowing one is told apart from its own bug. */
const thrownByTools = new WeakSet<object>();
/** What a tool threw, by the context of its call: a thrown string or `undefined` can be traced only so. */
const thrownInCall = new WeakMap<object, unknown>();

/**
 * Wraps a tool's `execute` so that whatever it throws (or rejects with) is remembered as the
 * tool's own failure. Errors pass through unchanged; only their origin is noted.
 */
export function noteToolErrors<A extends unknown[], R>(
  execute: (...args: A) => R,
): (...args: A) => R {
  const noting = function execute_(this: unknown, ...args: A): R {
    const ctx = args[1];
    const note = (error: unknown) => {
      if ((typeof error === "object" && error !== null) || typeof error === "function") {
        thrownByTools.add(error as object);
      }
      if (typeof ctx === "object" && ctx !== null) thrownInCall.set(ctx, error);
      return error;
    };
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
  unwrapped.set(noting, execute);
  return noting;
}

/** Each noting wrapper's own `execute`. */
const unwrapped = new WeakMap<object, (...args: never[]) => unknown>();

/**
 * A tool's `execute` without the noting wrapper: for the loop when no policy's `executeTool`
 * stands between it and the tool, so that nothing needs telling apart (the wrapper costs a
 * promise per call).
 */
export function unnoted<F extends (...args: never[]) => unknown>(execute: F): F {
  return (unwrapped.get(execute) as F | undefined) ?? execute;
}

/**
 * Whether a tool's own `execute` threw this value: an object it threw anywhere, or any value
 * (a string, `undefined`) it threw in the call with this context.
 */
export function isToolError(error: unknown, ctx: object): boolean {
  if (typeof error === "object" && error !== null && thrownByTools.has(error)) return true;
  return thrownInCall.has(ctx) && thrownInCall.get(ctx) === error;
}
