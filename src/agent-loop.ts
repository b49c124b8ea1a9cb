import { abortRace } from "./abort-race.js";
import type { ListenerErrorHandler, LoopEvent, LoopEventType, LoopListener } from "./events.js";
import { EventBus } from "./events.js";
import type { AgentLoopOptions, ResolvedOptions } from "./loop-options.js";
import { positiveInteger, resolveOptions } from "./loop-options.js";
import type { Message } from "./messages.js";
import { zeroUsage } from "./messages.js";
import type { RunContext } from "./run-context.js";
import { runLoop } from "./run-loop.js";
import type { RunResult } from "./run-result.js";

/** Per-run options. */
export interface RunOptions<Deps = unknown> {
  /** Aborts this run; the run rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Replaces the loop's `deps` for this run. */
  deps?: Deps;
  /** Replaces the loop's `maxSteps` for this run. */
  maxSteps?: number;
}

const defaultListenerError: ListenerErrorHandler = (error, event) => {
  console.error(`tollgate: a listener for "${event.type}" failed:`, error);
};

/**
 * The agent loop. Every tool call the model asks for passes the gate (callable? → args →
 * hooks → policy) before it may run. `run()` resolves with a `RunResult`; `stream()` yields
 * the same run's events as they happen.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools: [getWeather] });
 * const { text } = await loop.run("What's the weather in Oslo?");
 */
export class AgentLoop<Deps = unknown> {
  readonly #options: ResolvedOptions<Deps>;
  readonly #bus: EventBus;

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
    const events = this.stream(input, options);
    for (;;) {
      const next = await events.next();
      if (next.done) throw new Error("tollgate: the run ended without a run-finish event");
      if (next.value.type === "run-finish") {
        await events.return(undefined);
        return next.value.result;
      }
    }
  }

  /** Runs the agent, yielding every event; the last one is `run-finish`. Stopping early aborts the run. */
  async *stream(
    input: string | Message[],
    options: RunOptions<Deps> = {},
  ): AsyncGenerator<LoopEvent> {
    const messages = toMessages(input);
    const maxSteps = positiveInteger("maxSteps", options.maxSteps ?? this.#options.maxSteps, 1);
    yield* this.#drive(options, (base) => runLoop({ ...base, maxSteps, messages }));
  }

  async *#drive(
    options: RunOptions<Deps>,
    start: (
      base: Omit<RunContext<Deps>, "maxSteps" | "messages">,
    ) => AsyncGenerator<LoopEvent, RunResult>,
  ): AsyncGenerator<LoopEvent> {
    const abandon = new AbortController();
    const signals = [this.#options.signal, options.signal, abandon.signal].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length === 1 ? abandon.signal : AbortSignal.any(signals);
    signal.throwIfAborted();
    const { race, dispose } = abortRace(signal);
    let finished = false;
    try {
      const events = start({
        options: this.#options,
        runId: crypto.randomUUID(),
        deps: options.deps === undefined ? this.#options.deps : options.deps,
        signal,
        race,
        steps: [],
        usage: zeroUsage(),
        retries: new Map(),
        unavailableCalls: 0,
        executed: [],
      });
      for await (const event of events) {
        this.#bus.emit(event);
        if (event.type === "run-finish") finished = true;
        yield event;
      }
    } finally {
      dispose();
      if (!finished) abandon.abort(new DOMException("the run was abandoned", "AbortError"));
    }
  }
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
