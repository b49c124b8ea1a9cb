/** A value now, or later. The loop's hot path stays synchronous while user code does. */
export type MaybePromise<T> = T | Promise<T>;

/** Whether a value is a promise (or any thenable) that must be awaited. */
export function isPromise(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as { then?: unknown }).then === "function")
  );
}

/** Runs `next` on a value at once, or once it resolves: no microtask when nothing is async. */
export function andThen<T, U>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
): MaybePromise<U> {
  return isPromise(value) ? Promise.resolve(value).then(next) : next(value);
}
