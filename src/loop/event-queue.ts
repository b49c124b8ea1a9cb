import type { LoopEvent } from "../types/events.js";

/** A run that has started, as its event stream sees it: how it ends, and how to give it up. */
export interface StartedRun {
  readonly result: Promise<unknown>;
  abandon(): void;
}

/**
 * Starts a run whose events go to `sink`; a resume first checks its state (and may refuse),
 * so it answers with a promise of the started run.
 */
export type BeginRun = (sink: (event: LoopEvent) => void) => StartedRun | Promise<StartedRun>;

/**
 * The events of a run (`loop.stream()`, `loop.resumeStream()`): an async generator of
 * `LoopEvent`s, with `ready()` to learn whether the run could start before reading them.
 */
export interface RunEventStream extends AsyncGenerator<LoopEvent> {
  /**
   * Starts the run now (as the first `next()` would) and resolves with the stream once it has
   * started: for a resume, once its state and decisions were checked and the state claimed.
   * Rejects with what kept it from starting (a `ResumeError` for a double submit or a stale
   * state: nothing ran, and the first `next()` rejects with the same error). Await it before an
   * HTTP handler sends its headers, to answer a refusal with 409 instead of a 200 stream that
   * fails. Once it resolved, read the stream (the run goes on, and its events queue up).
   */
  ready(): Promise<this>;
}

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
 * - the run starts on the first `next()` or on `ready()` (a `return()` or `throw()` before it
 *   starts nothing), and an error thrown while starting (a resume's checks, which may take a
 *   while: `next()` calls wait for them in order) rejects that `next()` and `ready()`;
 * - the run goes on at its own pace and its events queue up for the reader, in order; `next()`
 *   calls made without awaiting each other get the events in the order they were called;
 * - the run's error rejects the `next()` after the events before it; then the stream is done;
 * - `return()` or `throw()` before the run has ended abandons the run (its signal aborts), and
 *   `next()` calls still waiting resolve as done; once the run has emitted `run-finish` it is
 *   left to settle (a reader that stops at `run-finish` has not abandoned a finished run).
 *
 * Every rejection of the run's result is handled here: none goes unhandled.
 */
export class EventStream implements RunEventStream {
  #begin: BeginRun | undefined;
  #run: StartedRun | undefined;
  /** Settles once an asynchronous start (a resume's checks) has settled; unset otherwise. */
  #starting: Promise<void> | undefined;
  /** What kept the run from starting, if anything did. */
  #refused: { error: unknown } | undefined;
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
    if (this.#begin !== undefined) {
      this.#start();
      return this.next();
    }
    // Calls made while a resume is checked wait for it, then take their turns in call order.
    if (this.#starting !== undefined) return this.#starting.then(() => this.next());
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

  /** Starts the run and resolves once it started; rejects with what kept it from starting. */
  ready(): Promise<this> {
    if (this.#begin !== undefined) this.#start();
    const settled = this.#starting ?? Promise.resolve();
    return settled.then(() => {
      if (this.#refused !== undefined) throw this.#refused.error;
      return this;
    });
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

  /** Starts the run, once: at once, or after a resume's checks (`#starting` meanwhile). */
  #start(): void {
    const begin = this.#begin!;
    this.#begin = undefined;
    let started: StartedRun | Promise<StartedRun>;
    try {
      started = begin((event) => this.#push(event));
    } catch (error) {
      this.#refuse(error);
      return;
    }
    if (!(started instanceof Promise)) {
      this.#attach(started);
      return;
    }
    this.#starting = started.then(
      (run) => {
        this.#starting = undefined;
        this.#attach(run);
      },
      (error: unknown) => {
        this.#starting = undefined;
        this.#refuse(error);
      },
    );
  }

  /** The run could not start: `ready()` rejects, and so does the next `next()`, once. */
  #refuse(error: unknown): void {
    this.#refused = { error };
    this.#end(true, error);
  }

  #attach(run: StartedRun): void {
    this.#run = run;
    run.result.then(
      () => this.#end(false, undefined),
      (error: unknown) => this.#end(true, error),
    );
    // The reader stopped while a resume was checked: the run it started is given up at once.
    if (this.#closed) run.abandon();
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
