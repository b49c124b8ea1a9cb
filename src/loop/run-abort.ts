import type { AbortState, SignalSource } from "../util/lazy-signal.js";

/**
 * How a run is aborted: the caller's signals, an abandoned stream, the run's timeout, a lost
 * lease. The loop checks `aborted` after each of its awaits and races the run against `abort()`
 * once; the `AbortSignal` that user code gets (tools, providers, hooks) is made the first time
 * it is asked for, already aborted when the run is. Why: on Node 20 an `AbortSignal` costs
 * 1.7–3.5 µs to make, a sixth of a short run, and most runs never hand theirs out.
 */
export class RunAbort {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #onAbort: ((reason: unknown) => void) | undefined;
  #unlisten: (() => void) | undefined;
  #view: AbortView | undefined;

  /**
   * A run's abort, following each of the caller's `signals` (the loop's and the run's): when one
   * aborts, so does the run, with its reason. Call `detach()` once the run has settled.
   */
  constructor(signals: readonly (AbortSignal | undefined)[]) {
    const given = signals.filter((signal) => signal !== undefined);
    const aborted = given.find((signal) => signal.aborted);
    if (aborted) {
      this.abort(aborted.reason);
      return;
    }
    if (given.length === 0) return;
    const listeners = given.map((signal) => {
      const listener = () => this.abort(signal.reason);
      signal.addEventListener("abort", listener, { once: true });
      return () => signal.removeEventListener("abort", listener);
    });
    this.#unlisten = () => {
      for (const unlisten of listeners) unlisten();
    };
  }

  /** Whether the run was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the run was aborted (what it rejects with). */
  get reason(): unknown {
    return this.#reason;
  }

  /** Throws the reason when the run was aborted. */
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  /** Aborts the run with `reason`; the first abort wins. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.detach();
    this.#controller?.abort(reason);
    this.#onAbort?.(reason);
  }

  /** The run's signal, for user code: aborts with the run. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /**
   * What an object that reads the signal lazily keeps of the run (`withLazySignal`): the
   * signal and the abort's state, read-only. Never the `RunAbort` itself: user code that holds
   * a tool's context must not be able to abort the run or detach it from the caller's signal.
   */
  get view(): AbortView {
    this.#view ??= new AbortView(this);
    return this.#view;
  }

  /**
   * Whether the next object that carries the run's signal (a provider call's options, a tool's
   * context) should read it only when user code does (`withLazySignal`): while it is not made.
   * Once it is (a real adapter reads it on its first request), objects carry it as a plain
   * property, which costs 0.2 µs less to make.
   */
  handsOutLazily(): boolean {
    return this.#controller === undefined;
  }

  /**
   * A promise that settles like `promise`, or rejects with the reason the moment the run
   * aborts, without waiting for it. A run is raced once, as a whole.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#aborted) {
      promise.catch(() => {});
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#onAbort = reject;
      promise.then(resolve, reject);
    });
  }

  /** Stops following the caller's signals (the run has settled). */
  detach(): void {
    this.#unlisten?.();
    this.#unlisten = undefined;
  }
}

/** A run's abort as a lazy holder sees it: what its signal would tell, nothing that acts. */
class AbortView implements SignalSource, AbortState {
  readonly #abort: RunAbort;

  constructor(abort: RunAbort) {
    this.#abort = abort;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get aborted(): boolean {
    return this.#abort.aborted;
  }

  get reason(): unknown {
    return this.#abort.reason;
  }

  throwIfAborted(): void {
    this.#abort.throwIfAborted();
  }
}
