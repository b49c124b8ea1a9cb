/**
 * A value now, or later.
 *
 * Why this exists: the loop calls user code (hooks, schemas, policies, tools) that may answer
 * at once or with a promise. Awaiting an answer that is already here still costs a promise and
 * a microtask, and a tool step makes dozens of such calls; continuing at once when nothing is
 * async keeps a step about five times cheaper (see `npm run bench`, "Loop overhead", and its
 * promises per step). One rule, then: never wait for a value that is already here. Code that
 * can stay synchronous continues with `andThen`; an async function takes a `MaybePromise` as
 * `isPromise(x) ? await x : x`, never with a bare `await`.
 */
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

/**
 * Runs `next` on a value at once, or once it resolves (a thenable is adopted as a promise);
 * `failed`, when given, gets a rejection. No microtask when nothing is async.
 */
export function andThen<T, U>(
  value: MaybePromise<T> | PromiseLike<T>,
  next: (value: T) => MaybePromise<U>,
  failed?: (error: unknown) => never,
): MaybePromise<U> {
  return isPromise(value) ? later(value as PromiseLike<T>, next, failed) : next(value as T);
}

/**
 * `andThen` for a value known to be a thenable (user code's answer, already tested with
 * `isPromise` where a throwing `then` getter is caught): adopted as a promise.
 */
export function later<T, U>(
  value: PromiseLike<T>,
  next: (value: T) => MaybePromise<U>,
  failed?: (error: unknown) => never,
): Promise<U> {
  return Promise.resolve(value).then(next, failed);
}
