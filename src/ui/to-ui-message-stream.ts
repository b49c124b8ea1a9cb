import type { LoopEvent } from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { shownError } from "../util/shown-error.js";
import { kindOf } from "../util/values.js";
import { ChunkWriter, type ToolOutputView } from "./chunks.js";
import { UI_STREAM_HEADERS, type UIMessageChunk } from "./ui-message.js";

/** Options of `toUIMessageStream` and `toUIMessageStreamResponse`. */
export interface UIMessageStreamOptions {
  /**
   * What the chat is shown of each call's output (and error text): redact here. The model still
   * reads the whole output. Default: the output as the model reads it.
   */
  toolOutput?: ToolOutputView | undefined;
  /**
   * The text of the `error` chunk when the run fails (log the error here). The browser gets only
   * this text: the default is "the run failed", never the error itself.
   */
  errorText?: ((error: unknown) => string) | undefined;
  /** The id of the assistant message a new run writes (default: a random UUID). */
  messageId?: string | undefined;
  /** The run's signal: a run that fails after it aborted ends with an `abort` chunk, not `error`. */
  signal?: AbortSignal | undefined;
}

const KEYS = ["toolOutput", "errorText", "messageId", "signal"] as const;
const asShown: ToolOutputView = (output) => output;

/**
 * A run's events (`loop.stream()`, `loop.resumeStream()`) as the AI SDK's UI message stream: the
 * chunks `useChat` and `readUIMessageStream` read. Text and reasoning become their parts; each
 * gated call a tool part with the args the gate judged; a paused run's pending calls
 * `tool-approval-request`s (ids bound to the call and the pause); results, error results and a
 * human's refusals their outputs. No chunk carries a run state, a signature, a digest or a stack.
 * Closing the stream closes the events' iterator, which abandons the run.
 */
export function toUIMessageStream(
  events: AsyncIterable<LoopEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  return chunkStream("toUIMessageStream()", events, options, new Set());
}

/**
 * `toUIMessageStream`, told which client-side calls the page answered in this request (a
 * resume's): their results are not sent back, as the AI SDK's stream does not.
 */
export function chunkStream(
  where: string,
  events: AsyncIterable<LoopEvent>,
  options: UIMessageStreamOptions,
  answeredByPage: ReadonlySet<string>,
): ReadableStream<UIMessageChunk> {
  checkKeys(`${where} options`, options, KEYS);
  const iterable = checkedEvents(where, events);
  const { toolOutput = asShown, errorText, signal } = options;
  for (const [name, value] of [
    ["toolOutput", toolOutput],
    ["errorText", errorText],
  ] as const) {
    if (value !== undefined && typeof value !== "function") {
      throw new TypeError(`${where}: ${name} must be a function, got ${kindOf(value)}`);
    }
  }
  const messageId = options.messageId ?? crypto.randomUUID();
  const writer = new ChunkWriter(toolOutput, messageId, answeredByPage);
  let iterator: AsyncIterator<LoopEvent> | undefined;
  let done = false;
  const end = (
    controller: ReadableStreamDefaultController<UIMessageChunk>,
    last: UIMessageChunk[],
  ) => {
    done = true;
    for (const chunk of last) controller.enqueue(chunk);
    controller.close();
  };
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      // One event per pull, and at least one chunk per pull, so a slow reader holds the run back.
      while (!done) {
        let chunks: UIMessageChunk[];
        try {
          iterator ??= iterable[Symbol.asyncIterator]();
          const next = await iterator.next();
          if (next.done) return end(controller, writer.close());
          chunks = await writer.write(next.value);
        } catch (error) {
          const failed: UIMessageChunk = signal?.aborted
            ? { type: "abort" }
            : { type: "error", errorText: shownError(error, errorText) };
          return end(controller, [...writer.close(), failed]);
        }
        if (chunks.length === 0) continue;
        for (const chunk of chunks) controller.enqueue(chunk);
        return;
      }
    },
    cancel() {
      done = true;
      Promise.resolve(iterator?.return?.()).catch(() => {});
    },
  });
}

/**
 * `toUIMessageStream` as a web-standard `Response` for a route handler: server-sent events, one
 * `data:` line per chunk, then `data: [DONE]`, with the `x-vercel-ai-ui-message-stream: v1`
 * header `useChat` expects.
 *
 * @example
 * export const POST = async (request: Request) =>
 *   toUIMessageStreamResponse(loop.stream(await promptOf(request), { signal: request.signal }));
 */
export function toUIMessageStreamResponse(
  events: AsyncIterable<LoopEvent>,
  options: UIMessageStreamOptions & { headers?: Record<string, string> | undefined } = {},
): Response {
  const { headers, ...rest } = options;
  return uiStreamResponse(
    chunkStream("toUIMessageStreamResponse()", events, rest, new Set()),
    headers,
  );
}

/** Chunks as the UI message stream's `Response`: SSE, the protocol's headers over `headers`. */
export function uiStreamResponse(
  chunks: ReadableStream<UIMessageChunk>,
  headers?: Record<string, string> | undefined,
): Response {
  return new Response(sseOf(chunks), {
    status: 200,
    headers: { ...headers, ...UI_STREAM_HEADERS },
  });
}

/** The chunks as SSE bytes; a chunk JSON cannot carry ends the stream with an `error` chunk. */
function sseOf(chunks: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const reader = chunks.getReader();
  const line = (text: string) => encoder.encode(`data: ${text}\n\n`);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) {
        controller.enqueue(line("[DONE]"));
        controller.close();
        return;
      }
      let json: string | undefined;
      try {
        json = JSON.stringify(next.value);
      } catch {
        json = undefined;
      }
      if (json === undefined) {
        reader.cancel().catch(() => {});
        const failed = { type: "error", errorText: "a tool output JSON cannot carry" };
        controller.enqueue(line(JSON.stringify(failed)));
        controller.enqueue(line("[DONE]"));
        controller.close();
        return;
      }
      controller.enqueue(line(json));
    },
    cancel() {
      return reader.cancel();
    },
  });
}

function checkedEvents(where: string, events: unknown): AsyncIterable<LoopEvent> {
  const iterable = events as Partial<AsyncIterable<LoopEvent>> | null | undefined;
  if (typeof iterable?.[Symbol.asyncIterator] === "function")
    return iterable as AsyncIterable<LoopEvent>;
  const hint =
    typeof (events as { then?: unknown } | null)?.then === "function"
      ? " (a promise: pass loop.stream(…) or loop.resumeStream(…), not run() or resume())"
      : "";
  throw new TypeError(
    `${where}: expected the events of a run (an async iterable), got ${kindOf(events)}${hint}`,
  );
}
