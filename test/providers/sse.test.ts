import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSSEParser, readSSE, readSSEChunks, type SSEEvent } from "../../src/http/sse.js";
import { allRecordings, recordingBytes } from "./support/recordings.js";

/** Parses a whole text in one go. */
function parse(text: string): SSEEvent[] {
  const events: SSEEvent[] = [];
  const parser = createSSEParser((event) => events.push(event));
  parser.feed(text);
  parser.end();
  return events;
}

/** Parses bytes cut at the given offsets, decoding UTF-8 across the cuts as `readSSE` does. */
function parseSplit(bytes: Uint8Array, cuts: number[]): SSEEvent[] {
  const events: SSEEvent[] = [];
  const parser = createSSEParser((event) => events.push(event));
  const decoder = new TextDecoder();
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    parser.feed(decoder.decode(bytes.subarray(start, cut), { stream: true }));
    start = cut;
  }
  parser.feed(decoder.decode(bytes.subarray(start)));
  parser.end();
  return events;
}

const event = (data: string, extra: Partial<SSEEvent> = {}): SSEEvent => ({
  event: undefined,
  data,
  id: undefined,
  retry: undefined,
  ...extra,
});

describe("createSSEParser", () => {
  it("reads event, data, id and retry fields", () => {
    expect(parse("event: ping\nid: 7\nretry: 1500\ndata: {}\n\n")).toEqual([
      event("{}", { event: "ping", id: "7", retry: 1500 }),
    ]);
  });

  it("joins multi-line data with \\n and keeps trailing whitespace", () => {
    expect(parse('data: {"a":\ndata:  1 }   \n\n')).toEqual([event('{"a":\n 1 }   ')]);
  });

  it("treats LF, CR and CRLF alike, also mixed in one stream", () => {
    const expected = [event("one"), event("two"), event("three")];
    expect(parse("data: one\n\ndata: two\r\rdata: three\r\n\r\n")).toEqual(expected);
  });

  it("skips comments and unknown fields, and a field without colon has an empty value", () => {
    expect(parse(": keep-alive\nfoo: bar\ndata\n\n:\ndata: x\n\n")).toEqual([
      event(""),
      event("x"),
    ]);
  });

  it("removes one space after the colon only", () => {
    expect(parse("data:none\n\ndata:  two\n\n")).toEqual([event("none"), event(" two")]);
  });

  it("does not dispatch an event without data, and resets its event name", () => {
    expect(parse("event: lonely\n\ndata: x\n\n")).toEqual([event("x")]);
  });

  it("carries the last id over to later events and ignores ids with NUL", () => {
    expect(parse("id: a\ndata: 1\n\ndata: 2\n\nid: b\0c\ndata: 3\n\n")).toEqual([
      event("1", { id: "a" }),
      event("2", { id: "a" }),
      event("3", { id: "a" }),
    ]);
  });

  it("ignores a retry that is not all digits", () => {
    expect(parse("retry: 1.5\ndata: x\n\n")).toEqual([event("x")]);
  });

  it("strips a byte order mark at the start only", () => {
    expect(parse("\ufeffdata: a\n\ndata: \ufeffb\n\n")).toEqual([event("a"), event("\ufeffb")]);
  });

  it("delivers a last event whose blank line never came", () => {
    expect(parse("data: [DONE]")).toEqual([event("[DONE]")]);
    expect(parse("data: [DONE]\n")).toEqual([event("[DONE]")]);
  });

  it("handles a CRLF split between two chunks", () => {
    const events: SSEEvent[] = [];
    const parser = createSSEParser((e) => events.push(e));
    for (const chunk of ["data: a\r", "\n\r", "\ndata: b\r", "", "\n", "\r\n"]) parser.feed(chunk);
    parser.end();
    expect(events).toEqual([event("a"), event("b")]);
  });
});

/** One event as a generator produces it, and how it is written on the wire. */
interface WireEvent {
  name?: string;
  id?: string;
  lines: string[];
  comment?: string;
}

const lineText = fc
  .string({ unit: "grapheme", maxLength: 12 })
  .map((s) => s.replace(/[\r\n]/g, " "));
const wireEvent: fc.Arbitrary<WireEvent> = fc.record(
  {
    name: fc.constantFrom("message_start", "error", "ping", "response.output_text.delta"),
    id: fc.stringMatching(/^[a-z0-9_-]{1,6}$/),
    lines: fc.array(lineText, { minLength: 1, maxLength: 3 }),
    comment: lineText,
  },
  { requiredKeys: ["lines"] },
);
const lineEnd = fc.constantFrom("\n", "\r", "\r\n");

/** Writes events with the given line ends; returns the text and the events a parser must see. */
function write(events: WireEvent[], ends: string[]): { text: string; expected: SSEEvent[] } {
  let text = "";
  let k = 0;
  let previous = "";
  const end = () => {
    const next = ends[k++ % ends.length] as string;
    // "\r" then "\n" would read as one CRLF: after a CR, write the LF as CRLF.
    previous = previous === "\r" && next === "\n" ? "\r\n" : next;
    return previous;
  };
  let lastId: string | undefined;
  const expected = events.map((e) => {
    if (e.comment !== undefined) text += `:${e.comment}${end()}`;
    if (e.name !== undefined) text += `event: ${e.name}${end()}`;
    if (e.id !== undefined) {
      text += `id: ${e.id}${end()}`;
      lastId = e.id;
    }
    for (const line of e.lines) text += `data: ${line}${end()}`;
    text += end();
    return event(e.lines.join("\n"), { event: e.name, id: lastId });
  });
  return { text, expected };
}

describe("SSE parsing, any split", () => {
  it("yields the same events for any split of the bytes (property)", () => {
    fc.assert(
      fc.property(
        fc.array(wireEvent, { maxLength: 6 }),
        fc.array(lineEnd, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, ends, rawCuts) => {
          const { text, expected } = write(events, ends);
          const bytes = new TextEncoder().encode(text);
          const cuts = rawCuts.map((cut) => cut % (bytes.length + 1));
          expect(parseSplit(bytes, cuts)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads every recorded stream the same way whole, byte by byte, and in odd pieces", () => {
    const streams = allRecordings().filter(
      (path) => /\.(bin|txt)$/.test(path) && !path.endsWith(".chunks.txt"),
    );
    expect(streams.length).toBeGreaterThanOrEqual(7);
    for (const path of streams) {
      const bytes = recordingBytes(path);
      const whole = parseSplit(bytes, []);
      expect(whole.length, path).toBeGreaterThan(2);
      const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
      expect(parseSplit(bytes, everyByte), path).toEqual(whole);
      const odd = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => i * 7 + (i % 5));
      expect(parseSplit(bytes, odd), path).toEqual(whole);
    }
  });
});

describe("readSSE", () => {
  it("decodes UTF-8 split across chunks of a byte stream", async () => {
    const bytes = new TextEncoder().encode("data: ÷ 5 = 185 🚦\r\n\r\ndata: x\r\n\r\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.subarray(i, i + 3));
        controller.close();
      },
    });
    const events: SSEEvent[] = [];
    for await (const e of readSSE(body)) events.push(e);
    expect(events).toEqual([event("÷ 5 = 185 🚦"), event("x")]);
  });
});

/** A byte stream that hands out `chunks` one by one. */
function chunked(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
  });
}

describe("readSSEChunks", () => {
  it("gives each chunk's completed events, the unterminated last one at the end, then undefined", async () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const bytes = encode("data: 🚦");
    const chunks = readSSEChunks(
      chunked([
        encode("data: a\n\ndata: b\n\ndata: c"),
        encode("\n\n"),
        bytes.subarray(0, 8), // the emoji cut after its first byte
        bytes.subarray(8),
        encode("\n\ndata: last"),
      ]),
    );
    const reads: (string[] | undefined)[] = [];
    for (let i = 0; i < 7; i++) reads.push((await chunks.read())?.map((e) => e.data));
    chunks.release();
    expect(reads).toEqual([["a", "b"], ["c"], [], [], ["🚦"], ["last"], undefined]);
  });

  it("agrees with the whole-text parse on every recording, one chunk per 64 bytes", async () => {
    for (const path of allRecordings()) {
      const bytes = recordingBytes(path);
      const parts: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += 64) parts.push(bytes.subarray(i, i + 64));
      const chunks = readSSEChunks(chunked(parts));
      const events: SSEEvent[] = [];
      for (let got = await chunks.read(); got !== undefined; got = await chunks.read()) {
        events.push(...got);
      }
      expect(events, path).toEqual(parse(new TextDecoder().decode(bytes)));
    }
  });
});
