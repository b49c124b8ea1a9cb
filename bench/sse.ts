/**
 * Measurement 6: SSE parse throughput of tollgate's parser vs `eventsource-parser`, on the
 * recorded streams in test/fixtures/real (see its SOURCES.md for the formats). Raw SSE
 * bodies are fed as they are; `*.chunks.txt` files (one parsed event per line) are turned back
 * into SSE frames the way SOURCES.md says.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { ROOT } from "./compile.js";
import { type Contender, expectEqual } from "./harness.js";

/** The recorded streams (copied unchanged into the repository; see their SOURCES.md). */
export const FIXTURES = join(ROOT, "test/fixtures/real");

/** One recorded stream. */
export interface SseStream {
  family: string;
  source: string;
  /** "raw" when the bytes are as received, "rebuilt" when framed again from a `.chunks.txt`. */
  kind: "raw" | "rebuilt";
  text: string;
}

/** What both parsers report for one event; compared to check they agree. */
interface ParsedEvent {
  event?: string | undefined;
  data: string;
}

/** A parser under test: `feed` chunks, then `end`. */
type ParserFactory = (onEvent: (event: ParsedEvent) => void) => {
  feed(chunk: string): void;
  end(): void;
};

const eventsourceParser: ParserFactory = (onEvent) => {
  const parser = createParser({ onEvent });
  return { feed: (chunk) => parser.feed(chunk), end: () => parser.reset({ consume: true }) };
};

/**
 * tollgate's parser, or `undefined` while it does not exist: the one import to change if the
 * parser moves.
 */
export async function loadTollgateParser(): Promise<ParserFactory | undefined> {
  try {
    const { createSSEParser } = await import("../src/http/sse.js");
    return (onEvent) => createSSEParser(onEvent);
  } catch {
    return undefined;
  }
}

/** Every recorded SSE stream in the fixtures. */
export function loadStreams(root = FIXTURES): SseStream[] {
  const streams: SseStream[] = [];
  for (const family of readdirSync(root, { withFileTypes: true })) {
    if (!family.isDirectory() || family.name === "LICENSES") continue;
    const dir = join(root, family.name);
    for (const file of readdirSync(dir).sort()) {
      const text = readFileSync(join(dir, file), "utf8");
      const add = (body: string, kind: SseStream["kind"], part = "") =>
        streams.push({ family: family.name, source: file + part, kind, text: body });
      if (file.endsWith(".bin") || file.endsWith("_response.txt")) add(text, "raw");
      else if (file.endsWith(".chunks.txt")) add(rebuild(text, family.name), "rebuilt");
      else if (file.endsWith(".yaml")) {
        yamlStrings(text).forEach((body, i) => {
          if (isSse(body)) add(body, "raw", `#${i}`);
        });
      } else if (file.endsWith(".json") && /^[0-9a-f-]{36}\.json$/.test(file)) {
        const exchanges = JSON.parse(text) as { response?: { body?: unknown } }[];
        exchanges.forEach((exchange, i) => {
          const body = exchange.response?.body;
          if (typeof body === "string" && isSse(body)) add(body, "raw", `#${i}`);
        });
      }
    }
  }
  return streams;
}

const isSse = (body: string) => /^(data|event):/m.test(body);

/** SSE frames again from one-parsed-event-per-line text (SOURCES.md, kind B). */
function rebuild(text: string, family: string): string {
  let out = "";
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const type = (JSON.parse(line) as { type?: unknown }).type;
    const named = family === "anthropic" || family === "openai-responses";
    out +=
      named && typeof type === "string" ? `event: ${type}\ndata: ${line}\n\n` : `data: ${line}\n\n`;
  }
  return family === "openai-chat" ? `${out}data: [DONE]\n\n` : out;
}

/**
 * The `string:` scalars of a VCR cassette: `|+` block scalars and double-quoted scalars (with
 * YAML's line folding). Enough YAML for these files; no YAML package is installed.
 */
export function yamlStrings(yaml: string): string[] {
  const found: string[] = [];
  const lines = yaml.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const block = /^(\s*)string: \|\+\s*$/.exec(lines[i]!);
    if (block) {
      const body: string[] = [];
      let indent = -1;
      for (i++; i < lines.length; i++) {
        const line = lines[i]!;
        const lead = line.length - line.trimStart().length;
        if (line.trim() !== "") {
          if (indent < 0) indent = lead;
          if (lead < indent) break;
        }
        body.push(line.slice(Math.max(indent, 0)));
      }
      i--;
      found.push(`${body.join("\n")}\n`);
      continue;
    }
    const quoted = /^\s*string: "/.exec(lines[i]!);
    if (quoted) {
      const start = lines.slice(0, i).join("\n").length + (i > 0 ? 1 : 0) + quoted[0].length;
      let end = start;
      while (end < yaml.length && yaml[end] !== '"') end += yaml[end] === "\\" ? 2 : 1;
      found.push(unquote(yaml.slice(start, end)));
      i += yaml.slice(start, end).split("\n").length - 1;
    }
  }
  return found;
}

/** A YAML double-quoted scalar's text: fold line breaks, then undo the escapes. */
function unquote(raw: string): string {
  const lines = raw.split("\n");
  let folded = lines[0]!;
  let blank = 0;
  for (const next of lines.slice(1)) {
    const text = next.trim();
    if (text === "") {
      blank++;
      continue;
    }
    if (folded.endsWith("\\") && !folded.endsWith("\\\\")) folded = folded.slice(0, -1);
    else folded = folded.trimEnd() + (blank > 0 ? "\\n".repeat(blank) : " ");
    folded += next.trimStart();
    blank = 0;
  }
  const json = folded
    .replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1")
    .replace(/\\ /g, " ")
    .replace(/\\\//g, "/");
  return JSON.parse(`"${json}"`) as string;
}

/** Splits a text into chunks of `size` characters (as a network read might cut it). */
const split = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

/** How a stream is cut into `feed` calls. */
export const FEEDS: Record<string, (text: string) => string[]> = {
  /** The whole body in one call. */
  whole: (text) => [text],
  /** One call per event, as when every event arrives in its own network read. */
  "per event": (text) => text.split(/(?<=\n\n|\r\n\r\n)/),
  /** 64-character pieces cut anywhere (lines and CRLFs split across calls). */
  "64-char chunks": (text) => split(text, 64),
};

/** Parses every stream once with a parser; returns the events, for checking both parsers agree. */
export function parseAll(factory: ParserFactory, streams: SseStream[]): ParsedEvent[] {
  const events: ParsedEvent[] = [];
  for (const stream of streams) {
    const parser = factory((event) => events.push({ event: event.event, data: event.data }));
    for (const chunk of split(stream.text, 7)) parser.feed(chunk);
    parser.end();
  }
  return events;
}

/** One contender: a parser over the whole corpus, each stream cut into feeds by `feeds`. */
export function sseContender(
  name: string,
  factory: ParserFactory,
  streams: SseStream[],
  feeds: (text: string) => string[],
  expectedEvents: number,
): Contender {
  const inputs = streams.map((s) => feeds(s.text));
  const bytes = streams.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0);
  return {
    name,
    units: bytes,
    async run() {
      let events = 0;
      let dataChars = 0;
      const onEvent = (event: ParsedEvent) => {
        events++;
        dataChars += event.data.length;
      };
      for (const chunks of inputs) {
        const parser = factory(onEvent);
        for (const chunk of chunks) parser.feed(chunk);
        parser.end();
      }
      expectEqual(`${name}: events`, events, expectedEvents);
      if (dataChars === 0) throw new Error(`${name}: no data parsed`);
    },
  };
}

/** The corpus summary: streams and bytes per family. */
export function corpusSummary(
  streams: SseStream[],
): { family: string; streams: number; bytes: number; rebuilt: number }[] {
  const byFamily = new Map<
    string,
    { family: string; streams: number; bytes: number; rebuilt: number }
  >();
  for (const s of streams) {
    const row = byFamily.get(s.family) ?? { family: s.family, streams: 0, bytes: 0, rebuilt: 0 };
    row.streams++;
    row.bytes += Buffer.byteLength(s.text);
    if (s.kind === "rebuilt") row.rebuilt++;
    byFamily.set(s.family, row);
  }
  return [...byFamily.values()];
}

export type { ParsedEvent, ParserFactory };
export { eventsourceParser };
