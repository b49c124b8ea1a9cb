import type { LoopEvent, RunResult, RunState } from "tollgate";
import { readSSE, type SSEEvent } from "../http/sse.js";
import { FRAME } from "../util/event-frames.js";
import { isEventType } from "../util/event-names.js";

/**
 * A run's event as `toEventStream` sends it: `run-finish`'s `result.state` (and a step
 * record's paused sub-run state) is there only when the server asked for it
 * (`includeState: true`); by default the states stay on the server.
 */
export type StreamedEvent = LoopEvent extends infer E
  ? E extends { type: "run-finish" }
    ? Omit<E, "result"> & { result: WithoutState<RunResult> }
    : E
  : never;

/** A `RunResult` of any status, whose `state` a frame may leave out. */
type WithoutState<R> = R extends unknown ? Omit<R, "state"> & { state?: RunState } : never;

/**
 * The event stream could not be read: the server answered no event stream, a frame was
 * malformed, the stream ended before the run did, or the run failed on the server (`message`
 * is then the server's redacted text, and `serverError` is true).
 */
export class EventStreamError extends Error {
  override readonly name = "EventStreamError";
  /** Whether the server reported the run's failure (an `error` frame). */
  readonly serverError: boolean;
  /** The HTTP status, when the server answered one that is not 2xx. */
  readonly status: number | undefined;

  constructor(message: string, serverError = false, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.serverError = serverError;
    this.status = status;
  }
}

/**
 * Reads the events `toEventStream` sent, in order: the run's `LoopEvent`s as JSON data. It
 * ends after the server's `end` frame; an `error` frame, a malformed frame, or a stream that
 * stops before its `end` frame throws an `EventStreamError`. Stopping early (a `break`)
 * cancels the body, which tells the server the client went away. Dependency-free: it runs in
 * browsers and needs no loop.
 *
 * @example
 * for await (const event of readEventStream(await fetch("/runs/42/events"))) {
 *   if (event.type === "text-delta") output.append(event.text);
 * }
 */
export async function* readEventStream(
  source: Response | ReadableStream<Uint8Array>,
): AsyncGenerator<StreamedEvent> {
  const body = await bodyOf(source);
  const frames = readSSE(body);
  try {
    for (;;) {
      const next = await frames.next().catch(cutOff);
      if (next.done) break;
      const frame = next.value;
      if (frame.event === FRAME.end) return;
      if (frame.event === FRAME.error) {
        throw new EventStreamError(serverMessage(frame), true);
      }
      yield parseEvent(frame);
    }
    throw new EventStreamError("the event stream ended before the run did (no end frame)");
  } finally {
    // Stopped early or failed (or done): let go of the body's reader, then cancel the body,
    // so the server stops sending.
    await frames.return(undefined).catch(() => {});
    body.cancel().catch(() => {});
  }
}

/** The most of a refusal's body that goes into the error's message. */
const SHOWN_BODY = 200;
/** How long a refusal's body is read for its message: a body that never ends must not hang. */
const REFUSAL_READ_MS = 1_000;

/** A body that failed while being read (the connection dropped): the stream was cut. */
function cutOff(error: unknown): never {
  if (error instanceof EventStreamError) throw error;
  const why = error instanceof Error ? error.message : String(error);
  throw new EventStreamError(
    `the event stream was cut before the run ended (${why})`,
    false,
    undefined,
    error,
  );
}

/**
 * The start of a refusal's body, as text: at most `SHOWN_BODY` characters, read for at most
 * `REFUSAL_READ_MS`; then the body is cancelled, which closes the connection.
 */
async function refusalText(body: ReadableStream<Uint8Array> | null | undefined): Promise<string> {
  if (!body || body.locked) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), REFUSAL_READ_MS);
  });
  try {
    while (text.length <= SHOWN_BODY) {
      const chunk = await Promise.race([reader.read(), timeUp]);
      if (chunk === undefined || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // A body that fails while read says nothing more.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
  return text;
}

/** Gives up a body that will not be read, so that the server learns the client went away. */
function cancelBody(body: ReadableStream<Uint8Array> | null | undefined): void {
  if (body && !body.locked) body.cancel().catch(() => {});
}

async function bodyOf(
  source: Response | ReadableStream<Uint8Array>,
): Promise<ReadableStream<Uint8Array>> {
  if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
    return unlocked(source);
  }
  const response = source as Partial<Response> | null | undefined;
  if (typeof response?.headers?.get !== "function" || !("body" in response)) {
    throw new TypeError("readEventStream: expected a Response or a ReadableStream");
  }
  if (response.bodyUsed) {
    throw new EventStreamError("the response's body was already read: give a fresh response");
  }
  if (!response.ok) {
    // The server's own words (a JSON error, a proxy's page) say more than the status alone.
    const text = await refusalText(response.body);
    const shown = text
      ? `: ${text.length > SHOWN_BODY ? `${text.slice(0, SHOWN_BODY)}…` : text}`
      : "";
    throw new EventStreamError(
      `the server answered ${response.status}, not an event stream${shown}`,
      false,
      response.status,
    );
  }
  const type = response.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("text/event-stream")) {
    cancelBody(response.body);
    throw new EventStreamError(`expected content-type text/event-stream, got ${type || "none"}`);
  }
  if (!response.body) throw new EventStreamError("the response has no body");
  return unlocked(response.body);
}

function unlocked(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (body.locked) {
    throw new EventStreamError("the body is already being read: give a fresh response");
  }
  return body;
}

/** One event frame, checked: JSON data of an object whose `type` is the frame's `event:`. */
function parseEvent(frame: SSEEvent): StreamedEvent {
  const where = `frame ${frame.id ?? "without an id"}`;
  if (frame.event === undefined) throw new EventStreamError(`${where} has no event: line`);
  let event: unknown;
  try {
    event = JSON.parse(frame.data);
  } catch {
    throw new EventStreamError(`${where} (${frame.event}): its data is not JSON`);
  }
  if (!isEventType(frame.event)) {
    throw new EventStreamError(`${where}: no event is named ${JSON.stringify(frame.event)}`);
  }
  if (
    typeof event !== "object" ||
    event === null ||
    (event as { type?: unknown }).type !== frame.event ||
    typeof (event as { runId?: unknown }).runId !== "string"
  ) {
    throw new EventStreamError(
      `${where} (${frame.event}): its data is not a ${frame.event} event (an object with its type and runId)`,
    );
  }
  return event as StreamedEvent;
}

function serverMessage(frame: SSEEvent): string {
  try {
    const message = (JSON.parse(frame.data) as { message?: unknown } | null)?.message;
    if (typeof message === "string") return message;
  } catch {
    // Malformed: reported as below.
  }
  throw new EventStreamError("the server's error frame is malformed");
}
