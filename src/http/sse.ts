/** One server-sent event, as the WHATWG EventSource rules define it. */
export interface SSEEvent {
  /** The `event:` field, or `undefined` when the event had none (the spec's "message"). */
  event: string | undefined;
  /** The `data:` lines of the event, joined with "\n". */
  data: string;
  /** The last `id:` seen in the stream so far (it carries over to later events). */
  id: string | undefined;
  /** The `retry:` field of this event in ms, when it had a valid one. */
  retry: number | undefined;
}

/** An incremental SSE parser: feed it text in chunks split anywhere, then call `end()`. */
export interface SSEParser {
  /** Parses one chunk of decoded text; complete events go to `onEvent` at once. */
  feed(chunk: string): void;
  /** Flushes a last line and event that the stream did not terminate with a blank line. */
  end(): void;
}

const LF = 10;
const [D, A, T] = [100, 97, 116];

/** Whether the line at `at` starts with `data:`. */
const isDataField = (text: string, at: number) =>
  text.charCodeAt(at) === D &&
  text.charCodeAt(at + 1) === A &&
  text.charCodeAt(at + 2) === T &&
  text.charCodeAt(at + 3) === A &&
  text.charCodeAt(at + 4) === COLON;
const COLON = 58;
const SPACE = 32;

/**
 * Creates an incremental server-sent-events parser. It handles LF, CR and CRLF line ends (also
 * a CRLF split between two chunks), `:` comments, multi-line `data:`, `event:`, `id:` and
 * `retry:`. Unlike a browser, `end()` still delivers a final event that lacks its blank line,
 * since some servers close the stream right after the last `data:` line.
 *
 * @example
 * const parser = createSSEParser((event) => console.log(event.event, event.data));
 * parser.feed("event: ping\ndata: {}\n\n");
 */
export function createSSEParser(onEvent: (event: SSEEvent) => void): SSEParser {
  // The start of a line that has not ended yet (whole chunks appended; searched only once).
  let pending = "";
  let started = false;
  let skipLeadingLF = false;
  let data = "";
  let hasData = false;
  let eventType: string | undefined;
  let lastId: string | undefined;
  let retry: number | undefined;

  function dispatch(): void {
    if (hasData) onEvent({ event: eventType, data, id: lastId, retry });
    data = "";
    hasData = false;
    eventType = undefined;
    retry = undefined;
  }

  function processLine(text: string, start: number, end: number): void {
    if (start === end) {
      dispatch();
      return;
    }
    if (text.charCodeAt(start) === COLON) return;
    let colon = text.indexOf(":", start);
    if (colon === -1 || colon > end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
    const value = valueStart < end ? text.slice(valueStart, end) : "";
    // Field names compared in place: no string is made for them.
    switch (colon - start) {
      case 4:
        if (text.startsWith("data", start)) {
          data = hasData ? `${data}\n${value}` : value;
          hasData = true;
        }
        return;
      case 5:
        if (text.startsWith("event", start)) eventType = value;
        else if (text.startsWith("retry", start) && /^\d+$/.test(value)) retry = Number(value);
        return;
      case 2:
        if (text.startsWith("id", start) && !value.includes("\0")) lastId = value;
    }
  }

  function feed(chunk: string): void {
    if (chunk === "") return;
    let text = chunk;
    if (!started) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let pos = 0;
    if (skipLeadingLF) {
      if (text.charCodeAt(0) === LF) pos = 1;
      skipLeadingLF = false;
    }
    let nextCR = text.indexOf("\r", pos);
    if (nextCR === -1 && pending === "") {
      // The common case, LF line ends only: one search per line, `data:` lines read inline,
      // and a one-line event (`data: …` then a blank line) handed over without buffering.
      for (let lf = text.indexOf("\n", pos); lf !== -1; lf = text.indexOf("\n", pos)) {
        if (pos === lf) dispatch();
        else if (isDataField(text, pos)) {
          const value = text.slice(text.charCodeAt(pos + 5) === SPACE ? pos + 6 : pos + 5, lf);
          if (!hasData && text.charCodeAt(lf + 1) === LF) {
            onEvent({ event: eventType, data: value, id: lastId, retry });
            eventType = undefined;
            retry = undefined;
            pos = lf + 2;
            continue;
          }
          data = hasData ? `${data}\n${value}` : value;
          hasData = true;
        } else processLine(text, pos, lf);
        pos = lf + 1;
      }
      if (pos < text.length) pending = pos === 0 ? text : text.slice(pos);
      return;
    }
    let nextLF = text.indexOf("\n", pos);
    while (nextCR !== -1 || nextLF !== -1) {
      const lineEnd = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextCR, nextLF);
      if (pending !== "") {
        const line = pending + text.slice(pos, lineEnd);
        pending = "";
        processLine(line, 0, line.length);
      } else processLine(text, pos, lineEnd);
      pos = lineEnd + 1;
      if (lineEnd === nextCR) {
        if (pos === text.length) skipLeadingLF = true;
        else if (text.charCodeAt(pos) === LF) pos++;
      }
      if (nextCR !== -1 && nextCR < pos) nextCR = text.indexOf("\r", pos);
      if (nextLF !== -1 && nextLF < pos) nextLF = text.indexOf("\n", pos);
    }
    if (pos < text.length) pending += pos === 0 ? text : text.slice(pos);
  }

  function end(): void {
    if (pending !== "") {
      const line = pending;
      pending = "";
      processLine(line, 0, line.length);
    }
    skipLeadingLF = false;
    dispatch();
  }

  return { feed, end };
}

/**
 * Reads a byte stream of server-sent events one chunk at a time: each `read()` gives the events
 * the chunk completed (often none or one), and `undefined` once the stream has ended. For a
 * reader that hands events on itself, without a generator of its own in between.
 */
export interface SSEChunkReader {
  /** The events completed by the next chunk, or `undefined` after the last. */
  read(): Promise<SSEEvent[] | undefined>;
  /** Lets go of the stream's reader (the stream stays open). */
  release(): void;
}

const NONE: SSEEvent[] = [];
const STREAM = { stream: true };

/** Creates an `SSEChunkReader` over `body`, decoding UTF-8 across chunk boundaries. */
export function readSSEChunks(body: ReadableStream<Uint8Array>): SSEChunkReader {
  let queue: SSEEvent[] = [];
  const parser = createSSEParser((event) => queue.push(event));
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let ended = false;
  const take = () => {
    if (queue.length === 0) return NONE;
    const ready = queue;
    queue = [];
    return ready;
  };
  return {
    async read() {
      if (ended) return undefined;
      const { done, value } = await reader.read();
      if (!done) parser.feed(decoder.decode(value, STREAM));
      else {
        ended = true;
        parser.feed(decoder.decode());
        parser.end();
      }
      return take();
    },
    release: () => reader.releaseLock(),
  };
}

/**
 * Reads a byte stream of server-sent events, decoding UTF-8 across chunk boundaries.
 * Cancel it by aborting the request the stream belongs to.
 */
export async function* readSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEEvent> {
  const chunks = readSSEChunks(body);
  try {
    for (let events = await chunks.read(); events; events = await chunks.read()) {
      // Not `yield*`: over an array, an async generator wraps each value in a promise of its own.
      for (let i = 0; i < events.length; i++) yield events[i]!;
    }
  } finally {
    chunks.release();
  }
}
