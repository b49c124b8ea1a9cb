/**
 * Where an object made by `withLazySignal` keeps what gives its `signal`. `Symbol.for`: the
 * subpath entries (tollgate/testing) bundle their own copy of this file.
 */
export const SIGNAL_FROM: unique symbol = Symbol.for("tollgate.signalFrom") as never;

/** What gives a lazy `signal` when it is first read: a run's abort, or another holder. */
export interface SignalSource {
  readonly signal?: AbortSignal | undefined;
}

/** What a check needs of an abort: an `AbortSignal`, or a run's abort (no signal made). */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
}

interface Holder {
  [SIGNAL_FROM]?: SignalSource;
}

/**
 * The one accessor every lazy holder shares (a getter made per object costs 0.7 µs, this one
 * 0.2 µs). Enumerable, so a spread (`{ ...ctx }`) reads it and the copy has the signal; an
 * assignment replaces it with a plain value.
 */
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: Holder) {
    return this[SIGNAL_FROM]?.signal;
  },
  set(this: Holder, value: unknown) {
    delete this[SIGNAL_FROM];
    Object.defineProperty(this, "signal", {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  },
  enumerable: true,
  configurable: true,
};

/**
 * `holder` with a `signal` that is `holder[SIGNAL_FROM].signal`, read when user code first
 * reads it. Why: on Node 20 an `AbortSignal` costs 1.7–3.5 µs to make, a sixth of a short run,
 * and most tools and fakes never read theirs. Write the key in the literal
 * (`withLazySignal({ runId, step, [SIGNAL_FROM]: run.abort })`): defined after, it costs as
 * much again.
 */
export function withLazySignal<T extends { [SIGNAL_FROM]: SignalSource }>(
  holder: T,
): T & { readonly signal: T[typeof SIGNAL_FROM]["signal"] } {
  return Object.defineProperty(holder, "signal", LAZY_SIGNAL) as never;
}

/** Whether `holder` reads its signal lazily (made by `withLazySignal`, not assigned since). */
export function hasLazySignal(
  holder: object | undefined,
): holder is { [SIGNAL_FROM]: SignalSource } {
  return (holder as Holder | undefined)?.[SIGNAL_FROM] !== undefined;
}

/**
 * What provider options can say of their run's abort without making a signal: the run's abort
 * when the options are lazy (`withLazySignal`), else their `signal`.
 */
export function abortStateOf(
  options: { signal?: AbortSignal } | undefined,
): AbortState | undefined {
  const source = (options as Holder | undefined)?.[SIGNAL_FROM];
  return source && typeof (source as Partial<AbortState>).throwIfAborted === "function"
    ? (source as unknown as AbortState)
    : options?.signal;
}
