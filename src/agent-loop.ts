import { ResumeError } from "./errors.js";
import type { ListenerErrorHandler, LoopEvent, LoopEventType, LoopListener } from "./events.js";
import { EventBus } from "./events.js";
import type { AgentLoopOptions, ResolvedOptions } from "./loop-options.js";
import { resolveOptions, wholeNumber } from "./loop-options.js";
import type { Message } from "./messages.js";
import { zeroUsage } from "./messages.js";
import { raceSignal } from "./race-signal.js";
import type { ApprovalDecisions } from "./resume.js";
import { planResume } from "./resume.js";
import type { RunContext } from "./run-context.js";
import { runLoop, sealed } from "./run-loop.js";
import type { RunResult } from "./run-result.js";
import type { RunState } from "./run-state.js";
import { snapshot } from "./snapshot.js";
import { noteUnsettledCalls } from "./unsettled-calls.js";

/** Per-run options. */
export interface RunOptions<Deps = unknown> {
  /** Aborts this run; the run rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Replaces the loop's `deps` for this run. */
  deps?: Deps;
  /** Replaces the loop's `maxSteps` for this run. */
  maxSteps?: number;
  /** The run's id (default: a random UUID); a `RunStore` keeps the run's states under it. */
  runId?: string;
}

/** Per-resume options; steps, usage, `maxSteps` and `runId` carry over from the state. */
export interface ResumeOptions<Deps = unknown> {
  signal?: AbortSignal;
  deps?: Deps;
}

/** The run's data a context starts from: fresh for `run()`, from the state for `resume()`. */
type Seed = Pick<
  RunContext<unknown>,
  | "runId"
  | "maxSteps"
  | "messages"
  | "steps"
  | "usage"
  | "retries"
  | "unavailableCalls"
  | "executed"
  | "denied"
>;

const defaultListenerError: ListenerErrorHandler = (error, event) => {
  console.error(`tollgate: a listener for "${event.type}" failed:`, error);
};

/**
 * The agent loop. Every tool call the model asks for passes the gate (callable? → args →
 * hooks → policy) before it may run. `run()` resolves with a `RunResult`; `stream()` yields
 * the same run's events as they happen; a paused run continues with `resume()`.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools: [getWeather] });
 * const { text } = await loop.run("What's the weather in Oslo?");
 */
export class AgentLoop<Deps = unknown> {
  readonly #options: ResolvedOptions<Deps>;
  readonly #bus: EventBus;
  /** States this loop resumed: without a store, "resumed twice" is caught here. */
  readonly #resumed = new Set<string>();

  constructor(options: AgentLoopOptions<Deps>) {
    this.#options = resolveOptions(options);
    this.#bus = new EventBus(options.onEvent, options.onListenerError ?? defaultListenerError);
  }

  /** Listens to one event type of every run; returns the function that stops listening. */
  on<T extends LoopEventType>(type: T, listener: LoopListener<T>): () => void {
    return this.#bus.on(type, listener);
  }

  /** Runs the agent on a prompt (or a whole transcript) until it ends. */
  async run(input: string | Message[], options: RunOptions<Deps> = {}): Promise<RunResult> {
    return this.#begin(this.#seed(input, options), options, (run) => runLoop(run)).result;
  }

  /** Runs the agent, yielding every event; the last one is `run-finish`. Stopping early aborts the run. */
  stream(input: string | Message[], options: RunOptions<Deps> = {}): AsyncGenerator<LoopEvent> {
    let seed: Seed;
    try {
      seed = this.#seed(input, options);
    } catch (error) {
      return failing(error); // bad input still fails on the first next(), as with a generator
    }
    return this.#events((sink) => this.#begin(seed, options, (run) => runLoop(run), sink));
  }

  /**
   * Continues a paused run (or a crashed one, from a `RunStore` checkpoint) with a decision
   * for every pending call. Rejects with `ResumeError`, running nothing, when the state or the
   * decisions do not fit; a state is resumed at most once.
   *
   * @example
   * const result = await loop.resume(JSON.parse(saved), { [id]: { approve: true } });
   */
  async resume(
    state: RunState,
    decisions: ApprovalDecisions = {},
    options: ResumeOptions<Deps> = {},
  ): Promise<RunResult> {
    const { seed, first } = await this.#planResume(state, decisions, options);
    return this.#begin(seed, options, (run) => runLoop(run, () => first(run))).result;
  }

  /** `resume()`, yielding every event as it happens. */
  async *resumeStream(
    state: RunState,
    decisions: ApprovalDecisions = {},
    options: ResumeOptions<Deps> = {},
  ): AsyncGenerator<LoopEvent> {
    const { seed, first } = await this.#planResume(state, decisions, options);
    yield* this.#events((sink) =>
      this.#begin(seed, options, (run) => runLoop(run, () => first(run)), sink),
    );
  }

  #seed(input: string | Message[], options: RunOptions<Deps>): Seed {
    const runId = options.runId ?? crypto.randomUUID();
    if (typeof runId !== "string" || runId === "") {
      throw new TypeError("run(): runId must be a non-empty string");
    }
    return {
      runId,
      maxSteps: wholeNumber("maxSteps", options.maxSteps ?? this.#options.maxSteps, 1),
      messages: toMessages(input),
      steps: [],
      usage: zeroUsage(),
      retries: new Map(),
      unavailableCalls: 0,
      executed: [],
      denied: [],
    };
  }

  /** Checks the state and decisions, then claims the state: nothing has run when this throws. */
  async #planResume(state: RunState, decisions: ApprovalDecisions, options: ResumeOptions<Deps>) {
    const plan = await planResume(this.#options, state, decisions);
    this.#options.signal?.throwIfAborted();
    options.signal?.throwIfAborted();
    await this.#claim(plan.state.stateId);
    const { state: checked } = plan;
    const seed: Seed = {
      runId: checked.runId,
      maxSteps: checked.maxSteps,
      messages: checked.messages.slice(),
      steps: checked.steps.slice(0, -1),
      usage: checked.usage,
      retries: new Map(Object.entries(checked.retries)),
      unavailableCalls: checked.unavailableCalls,
      executed: checked.executed.slice(),
      denied: checked.denied.slice(),
    };
    return { seed, first: plan.first };
  }

  /** Claims a state for this resume, in the store when there is one; a second claim fails. */
  async #claim(stateId: string): Promise<void> {
    const already = () =>
      new ResumeError(`state ${stateId} was already resumed; a state resumes once`);
    if (this.#resumed.has(stateId)) throw already();
    const store = this.#options.store;
    if (store && !(await store.claim(stateId))) throw already();
    this.#resumed.add(stateId);
  }

  /**
   * Starts a run: every event goes to the listeners and, when given, to `sink`. The run's
   * signal aborts when the caller's does, or when `abandon()` is called before it ends.
   */
  #begin(
    seed: Seed,
    options: RunOptions<Deps> | ResumeOptions<Deps>,
    start: (run: RunContext<Deps>) => Promise<RunResult>,
    sink?: (event: LoopEvent) => void,
  ): Started {
    const controller = new AbortController();
    const signals = [this.#options.signal, options.signal, controller.signal].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length === 1 ? controller.signal : AbortSignal.any(signals);
    const abandon = () => {
      if (!controller.signal.aborted)
        controller.abort(new DOMException("the run was abandoned", "AbortError"));
    };
    if (signal.aborted) return { result: Promise.reject(signal.reason), abandon };
    const bus = this.#bus;
    const deliver = sink
      ? (event: LoopEvent) => {
          bus.emit(event);
          sink(event);
        }
      : (event: LoopEvent) => bus.emit(event);
    const run: RunContext<Deps> = {
      ...seed,
      options: this.#options,
      deps: options.deps === undefined ? this.#options.deps : options.deps,
      signal,
      openStep: undefined,
      // After an abort the run has rejected: whatever is still settling emits nothing.
      emit: (event) => {
        if (!signal.aborted) deliver(event);
      },
      checkpoint: checkpointer(() => run, this.#options),
    };
    // The one place the run races its signal: it rejects the moment the signal aborts.
    const result = raceSignal(start(run), signal).catch((error: unknown) => {
      if (signal.aborted && error === signal.reason) noteUnsettledCalls(run, error);
      abandon();
      throw error;
    });
    return { result, abandon };
  }

  /**
   * The events of a run as an async iterable: the run goes on at its own pace and its events
   * queue up for the reader; the run's error is thrown after the events before it. A reader
   * that stops early abandons the run (its signal aborts).
   */
  async *#events(begin: (sink: (event: LoopEvent) => void) => Started): AsyncGenerator<LoopEvent> {
    let queue: LoopEvent[] = [];
    let wake: (() => void) | undefined;
    const started = begin((event) => {
      queue.push(event);
      wake?.();
    });
    let outcome: { ok: true } | { ok: false; error: unknown } | undefined;
    started.result.then(
      () => {
        outcome = { ok: true };
        wake?.();
      },
      (error: unknown) => {
        outcome = { ok: false, error };
        wake?.();
      },
    );
    try {
      for (;;) {
        if (queue.length > 0) {
          const ready = queue;
          queue = [];
          for (const event of ready) yield event;
          continue;
        }
        if (outcome) {
          if (!outcome.ok) throw outcome.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      if (!outcome) started.abandon();
    }
  }
}

/** An event stream that fails at once with the given error. */
// biome-ignore lint/correctness/useYield: it only throws, on the first next()
async function* failing(error: unknown): AsyncGenerator<LoopEvent> {
  throw error;
}

/** A run that has started: its result, and how to give it up. */
interface Started {
  result: Promise<RunResult>;
  abandon(): void;
}

/**
 * Writes the run as it stands to the store, in order: each call snapshots now, and resolves
 * once that snapshot (and every earlier one) is written. A failed write fails every later one.
 */
function checkpointer<Deps>(
  run: () => RunContext<Deps>,
  options: ResolvedOptions<Deps>,
): () => Promise<void> {
  const { store } = options;
  if (!store) return () => Promise.resolve();
  let written = Promise.resolve();
  return () => {
    const state = snapshot(run(), "running");
    written = written.then(async () => store.put(await sealed(run(), state)));
    return written;
  };
}

const ROLES = new Set(["user", "assistant", "tool"]);

function toMessages(input: string | Message[]): Message[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input)) {
    throw new TypeError("run(): input must be a prompt string or an array of messages");
  }
  input.forEach((message, index) => {
    if (!message || !ROLES.has(message.role)) {
      throw new TypeError(
        `run(): message ${index} has no valid role; use "user", "assistant" or "tool"`,
      );
    }
  });
  return input.slice();
}
