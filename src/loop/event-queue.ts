import type { LoopEvent } from "../events.js";

/** A run that has started, as its event stream sees it: how it ends, and how to give it up. */
export interface StartedRun {
  readonly result: Promise<unknown>;
  abandon(): void;
}

/** Starts a run whose events go to `sink`. */
export type BeginRun = (sink: (event: LoopEvent) => void) => StartedRun;

type Result = IteratorResult<LoopEvent, void>;

/** A `next()` call waiting for the run's next event or its end. */
interface Reader {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * The resolving functions of the promise `capture` was last the executor of: one executor
 * serves every waiting `next()`, so waiting allocates no closure of its own.
 */
let madeResolve: Reader["resolve"] = () => {};
let madeReject: Reader["reject"] = () => {};
function capture(resolve: Reader["resolve"], reject: Reader["reject"]): void {
  madeResolve = resolve;
  madeReject = reject;
}

/**
 * %AsyncIteratorPrototype%: what an async generator inherits beyond its own methods
 * (`Symbol.asyncDispose` where the runtime has it), so an event stream offers the same.
 */
const asyncIteratorPrototype: object = Object.getPrototypeOf(
  Object.getPrototypeOf(async function* () {}).prototype,
);

/**
 * The events of a run as an async generator, written by hand: an async generator function
 * pays several promises per event, while this one answers `next()` with one promise, already
 * resolved when an event is waiting. It behaves as the generator did:
 *
 * - the run starts on the first `next()` (a `return()` or `throw()` before it starts nothing),
 *   and an error thrown while starting rejects that `next()`;
 * - the run goes on at its own pace and its events queue up for the reader, in order; `next()`
 *   calls made without awaiting each other get the events in the order they were called;
 * - the run's error rejects the `next()` after the events before it; then the stream is done;
 * - `return()` or `throw()` before the run has ended abandons the run (its signal aborts), and
 *   `next()` calls still waiting resolve as done; once the run has emitted `run-finish` it is
 *   left to settle (a reader that stops at `run-finish` has not abandoned a finished run).
 *
 * Every rejection of the run's result is handled here: none goes unhandled.
 */
export class EventStream implements AsyncGenerator<LoopEvent, void, unknown> {
  #begin: BeginRun | undefined;
  #run: StartedRun | undefined;
  /** Events not read yet: `#queue[#head]` is the next one. */
  #queue: LoopEvent[] = [];
  #head = 0;
  /** The oldest `next()` waiting (only ever while the queue is empty), if any. */
  #resolve: Reader["resolve"] | undefined;
  #reject: Reader["reject"] = madeReject;
  /** `next()` calls waiting after the oldest one, oldest first (only when called without awaiting). */
  #later: Reader[] = [];
  /** The run has ended (its result settled). */
  #ended = false;
  #failed = false;
  #error: unknown;
  /** The reader is done with the stream: it hands out nothing more. */
  #closed = false;
  /**
   * The run has emitted `run-finish`: its work is done (what follows is settling, such as a
   * store's lease), so a reader that stops now abandons nothing.
   */
  #finished = false;

  constructor(begin: BeginRun) {
    this.#begin = begin;
  }

  /** The next event; done after the last one; rejects with the run's error after the events before it. */
  next(): Promise<Result> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++] as LoopEvent;
      if (this.#head === this.#queue.length) {
        this.#queue.length = 0;
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    const begin = this.#begin;
    if (begin !== undefined) {
      this.#begin = undefined;
      try {
        this.#start(begin);
      } catch (error) {
        this.#close();
        return Promise.reject(error);
      }
      return this.next();
    }
    if (this.#ended) {
      const failed = this.#failed;
      const error = this.#error;
      this.#close();
      return failed ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
    }
    const waiting = new Promise<Result>(capture);
    if (this.#resolve === undefined) {
      this.#resolve = madeResolve;
      this.#reject = madeReject;
    } else {
      this.#later.push({ resolve: madeResolve, reject: madeReject });
    }
    return waiting;
  }

  /** Stops reading: a run not finished yet is abandoned (its signal aborts). */
  async return(value?: void | PromiseLike<void>): Promise<IteratorReturnResult<void>> {
    this.#close();
    return { value: await value, done: true };
  }

  /** Stops reading as `return()` does, and rejects with `error`, as a generator does. */
  throw(error: unknown): Promise<Result> {
    this.#close();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #start(begin: BeginRun): void {
    const run = begin((event) => this.#push(event));
    this.#run = run;
    run.result.then(
      () => this.#end(false, undefined),
      (error: unknown) => this.#end(true, error),
    );
  }

  /** The oldest waiting `next()`, taken off the waiting list; undefined when none waits. */
  #takeReader(): Reader | undefined {
    const resolve = this.#resolve;
    if (resolve === undefined) return undefined;
    const reader = { resolve, reject: this.#reject };
    this.#shiftReaders();
    return reader;
  }

  #shiftReaders(): void {
    const next = this.#later.shift();
    this.#resolve = next?.resolve;
    if (next !== undefined) this.#reject = next.reject;
  }

  #push(event: LoopEvent): void {
    if (event.type === "run-finish") this.#finished = true;
    if (this.#closed) return;
    const resolve = this.#resolve;
    if (resolve === undefined) {
      this.#queue.push(event);
      return;
    }
    if (this.#later.length === 0) this.#resolve = undefined;
    else this.#shiftReaders();
    resolve({ value: event, done: false });
  }

  #end(failed: boolean, error: unknown): void {
    this.#ended = true;
    if (this.#closed) return;
    this.#failed = failed;
    this.#error = error;
    const reader = this.#takeReader();
    if (reader === undefined) return; // the next next() finds the end, after the queued events
    this.#close();
    if (failed) reader.reject(error);
    else reader.resolve({ value: undefined, done: true });
  }

  /** Hands out nothing more; abandons the run if it has not ended; waiting readers resolve as done. */
  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#begin = undefined;
    this.#queue = [];
    this.#head = 0;
    this.#error = undefined;
    const readers: Reader[] = [];
    for (let reader = this.#takeReader(); reader; reader = this.#takeReader()) readers.push(reader);
    if (this.#run !== undefined && !this.#ended && !this.#finished) this.#run.abandon();
    for (const reader of readers) reader.resolve({ value: undefined, done: true });
  }
}

Object.setPrototypeOf(EventStream.prototype, asyncIteratorPrototype);
