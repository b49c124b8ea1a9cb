import type { LoopEvent } from "../types/events.js";
import type { StepRecord } from "../types/step-record.js";
import { FRAME } from "../util/event-frames.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import { shownError } from "../util/shown-error.js";
import { kindOf } from "../util/values.js";

/** Options of `toEventStream`. */
export interface EventStreamOptions {
  /**
   * Sends a `: keep-alive` comment this often (ms) while the run is quiet, so proxies and
   * load balancers keep the connection open. `0` turns it off. Default 15000.
   */
  keepAliveMs?: number | undefined;
  /**
   * The message of the final `error` frame when the run throws (log the error here). What the
   * browser sees is only this text: the default is "the run failed", never the error itself.
   */
  errorMessage?: ((error: unknown) => string) | undefined;
  /** Headers added to the response (the SSE headers win over these). */
  headers?: Record<string, string> | undefined;
  /**
   * `true`: frames carry the run's states as the loop has them — `run-finish`'s
   * `result.state` (with its signature) and the paused sub-run state a step record's call
   * holds. By default they are left out: a state holds every tool output and the transcript,
   * and a signed one resumes the run, so it stays on the server (resume by `runId` from a store).
   */
  includeState?: boolean | undefined;
}

const KEYS = ["keepAliveMs", "errorMessage", "headers", "includeState"] as const;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
const WHERE = "toEventStream()";

/**
 * Turns a run's events (`loop.stream()`, `loop.resumeStream()`) into a web-standard `Response`
 * of server-sent events, for Node 20+, Bun, Deno and edge handlers. Each event is one frame,
 * `id: <n>`, `event: <type>`, `data: <json>`; the run's end is a last `end` frame, and a run
 * that throws ends with an `error` frame carrying only `errorMessage(error)`. A `tool-error`
 * event is sent without its `error` and `stack` (your bug's details stay on the server), and
 * no frame carries a run state or its signature unless `includeState: true` asks.
 * When the client goes away the events' iterator is closed (`return()`), which abandons a
 * `stream()` run at its next event; give the run the request's `signal` to stop it at once.
 * Read it with `readEventStream` from `tollgate/event-stream`. The Response is a 200 from the
 * start: for a resume, `await events.ready()` first, so that a refused one (a double submit, a
 * stale state) can be answered 409 instead of a stream that ends in an `error` frame.
 *
 * @example
 * export const GET = (request: Request) =>
 *   toEventStream(loop.stream("Plan my day", { signal: request.signal }));
 */
export function toEventStream(
  events: AsyncIterable<LoopEvent>,
  options: EventStreamOptions = {},
): Response {
  if (typeof options === "object" && options !== null && "signal" in options) {
    throw new TypeError(
      `${WHERE}: \`signal\` is not an option here; give it to the run: loop.stream(input, { signal })`,
    );
  }
  checkKeys(`${WHERE} options`, options, KEYS);
  const iterable = events as Partial<AsyncIterable<LoopEvent>> | null | undefined;
  if (typeof iterable?.[Symbol.asyncIterator] !== "function") {
    const hint =
      typeof (events as { then?: unknown } | null)?.then === "function"
        ? " (a promise: pass loop.stream(…) or loop.resumeStream(…), not run() or resume())"
        : "";
    throw new TypeError(
      `${WHERE}: expected the events of a run (an async iterable), got ${kindOf(events)}${hint}`,
    );
  }
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (typeof keepAliveMs !== "number" || !Number.isFinite(keepAliveMs) || keepAliveMs < 0) {
    throw new TypeError(
      `${WHERE}: keepAliveMs must be a number of ms (0 turns keep-alives off), got ${shownValue(keepAliveMs)}`,
    );
  }
  const errorMessage = options.errorMessage;
  if (errorMessage !== undefined && typeof errorMessage !== "function") {
    throw new TypeError(`${WHERE}: errorMessage must be a function, got ${kindOf(errorMessage)}`);
  }
  const includeState = options.includeState ?? false;
  if (typeof includeState !== "boolean") {
    throw new TypeError(
      `${WHERE}: includeState must be true or false, got ${kindOf(includeState)}`,
    );
  }
  const headers = new Headers(options.headers);
  headers.set("content-type", "text/event-stream; charset=utf-8");
  headers.set("cache-control", "no-cache, no-transform");
  headers.set("x-accel-buffering", "no");

  const encoder = new TextEncoder();
  let iterator: AsyncIterator<LoopEvent> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let open = true;
  let id = 0;
  const stop = () => {
    open = false;
    if (timer !== undefined) clearInterval(timer);
  };
  /** Closes the events' iterator without waiting: a pending `next()` would hold it up. */
  const abandon = () => {
    try {
      Promise.resolve(iterator?.return?.()).catch(() => {});
    } catch {
      // The iterator's own return() failed: the run is left to end by itself.
    }
  };
  const last = (controller: ReadableStreamDefaultController<Uint8Array>, frame: string) => {
    stop();
    controller.enqueue(encoder.encode(frame));
    controller.close();
  };
  const failed = (error: unknown) =>
    `event: ${FRAME.error}\ndata: ${JSON.stringify({ message: shownError(error, errorMessage) })}\n\n`;

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (keepAliveMs > 0) {
        timer = setInterval(() => {
          if (open) controller.enqueue(encoder.encode(": keep-alive\n\n"));
        }, keepAliveMs);
      }
    },
    async pull(controller) {
      let step: IteratorResult<LoopEvent>;
      try {
        iterator ??= iterable[Symbol.asyncIterator]!();
        step = await iterator.next();
      } catch (error) {
        if (open) last(controller, failed(error));
        return;
      }
      if (!open) return;
      if (step.done) {
        last(controller, `event: ${FRAME.end}\ndata: {}\n\n`);
        return;
      }
      let frame: string;
      try {
        frame = `id: ${++id}\nevent: ${eventType(step.value)}\ndata: ${toJSON(step.value, includeState)}\n\n`;
      } catch (error) {
        abandon();
        last(controller, failed(error));
        return;
      }
      controller.enqueue(encoder.encode(frame));
    },
    cancel() {
      stop();
      abandon();
    },
  });
  return new Response(body, { status: 200, headers });
}

/** The event's type, checked: it becomes the frame's `event:` line. */
function eventType(event: unknown): string {
  const type = (event as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !/^[a-z][a-z-]*$/.test(type)) {
    throw new TypeError(`${WHERE}: expected a run's event, got ${kindOf(event)}`);
  }
  return type;
}

/**
 * An event as JSON, with a tool's error and stack left out, and, unless `includeState`, the
 * run's states (a nested `sub-run` too).
 */
function toJSON(event: LoopEvent, includeState: boolean): string {
  const json = JSON.stringify(sent(event, includeState));
  if (json === undefined) throw new TypeError(`${WHERE}: an event JSON cannot carry`);
  return json;
}

/** What of an event a frame carries. */
function sent(event: LoopEvent, includeState: boolean): LoopEvent {
  switch (event.type) {
    case "tool-error": {
      const { error: _error, stack: _stack, ...rest } = event;
      return { ...rest, error: undefined };
    }
    case "sub-run":
      return { ...event, event: sent(event.event, includeState) };
    case "step-finish":
      return includeState ? event : { ...event, record: withoutSubRuns(event.record) };
    case "run-finish": {
      if (includeState) return event;
      const { state: _state, ...result } = event.result;
      const steps = result.steps.map(withoutSubRuns);
      return { ...event, result: { ...result, steps } as typeof event.result };
    }
    default:
      return event;
  }
}

/** A step record without the paused sub-run states its calls hold (a state, maybe signed). */
function withoutSubRuns(record: StepRecord): StepRecord {
  if (!record.calls.some((call) => call.subRun !== undefined)) return record;
  const calls = record.calls.map(({ subRun: _subRun, ...call }) => call);
  return { ...record, calls };
}
