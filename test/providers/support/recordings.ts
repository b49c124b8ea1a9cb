import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { collectResponse } from "../../../src/model/response-assembler.js";
import type {
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Provider,
} from "../../../src/types/provider.js";
import type { ReplayAnswer } from "../../support/replay-server.js";
import { parseYaml } from "./vcr-yaml.js";

/**
 * Real recorded provider traffic, copied unchanged into the repository from the team's shared
 * fixtures (see its SOURCES.md for where each recording comes from and its licence).
 */
export const FIXTURES = fileURLToPath(new URL("../../fixtures/real/", import.meta.url));

/** Every recording in the fixtures folder, as `<provider folder>/<file>`. */
export function allRecordings(): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== "LICENSES")
    .flatMap((dir) => readdirSync(`${FIXTURES}${dir.name}`).map((file) => `${dir.name}/${file}`));
}

/** A recording's text, byte for byte. */
export const recording = (path: string): string => readFileSync(`${FIXTURES}${path}`, "utf8");

/** A recording's raw bytes. */
export const recordingBytes = (path: string): Uint8Array => readFileSync(`${FIXTURES}${path}`);

/** A JSON recording (formats C, E, F, H). */
export const recordingJson = (path: string): any => JSON.parse(recording(path));

/** The JSON objects of a format-B `*.chunks.txt` recording, one per line. */
export const chunkLines = (path: string): any[] =>
  recording(path)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

/**
 * Rebuilds the wire stream of a format-B recording, as its SOURCES.md says: `data: <line>` per
 * line, with `event: <type>` first for Anthropic and Responses, `[DONE]` last for OpenAI Chat,
 * and Gemini's CRLF framing.
 */
export function chunksToSSE(
  lines: readonly unknown[],
  style: "openai-chat" | "typed-events" | "gemini",
): string {
  const json = lines.map((line) => JSON.stringify(line));
  switch (style) {
    case "openai-chat":
      return `${json.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`;
    case "typed-events":
      return json
        .map((line, i) => `event: ${(lines[i] as { type: string }).type}\ndata: ${line}\n\n`)
        .join("");
    case "gemini":
      return json.map((line) => `data: ${line}\r\n\r\n`).join("");
  }
}

/** One request/response pair of a VCR cassette (format D). */
export interface CassetteInteraction {
  request: { method: string; uri: string; parsed_body: any };
  response: {
    status: { code: number };
    headers: Record<string, string[]>;
    body?: { string: string };
    parsed_body?: unknown;
  };
}

/** The interactions of a pydantic-ai VCR cassette. */
export const cassette = (path: string): CassetteInteraction[] =>
  (parseYaml(recording(path)) as { interactions: CassetteInteraction[] }).interactions;

/** The replay of a cassette interaction's response: its status, content type and body. */
export function cassetteAnswer(
  interaction: CassetteInteraction,
  extra?: ReplayAnswer,
): ReplayAnswer {
  const { response } = interaction;
  const body = response.body?.string ?? JSON.stringify(response.parsed_body);
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(response.headers)) {
    if (["content-type", "retry-after", "x-should-retry"].includes(name))
      headers[name] = values[0] ?? "";
  }
  return { status: response.status.code, headers, body, ...extra };
}

/** The replay of an anthropic-sdk-python exchange (format E). */
export function exchangeAnswer(exchange: any, extra?: ReplayAnswer): ReplayAnswer {
  const { status_code, headers, body } = exchange.response;
  const kept: Record<string, string> = {};
  for (const name of ["content-type", "x-should-retry", "retry-after"]) {
    if (headers[name] !== undefined) kept[name] = headers[name];
  }
  return {
    status: status_code,
    headers: kept,
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...extra,
  };
}

/** How stream recordings are replayed: whole, cut at the nastiest places with delays, and in odd pieces. */
export const STREAM_MODES: ReplayAnswer[] = [
  { split: "whole" },
  { split: "tricky", delayMs: 1 },
  { split: "odd" },
];

/** Everything a provider streamed, the assembled response, and the error that ended it, if any. */
export interface StreamRun {
  deltas: ModelStreamPart[];
  response: ModelResponse;
  error?: unknown;
}

/** Runs `provider.stream` to its end, keeping the parts that came before an error. */
export async function runStream(
  provider: Provider,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<StreamRun> {
  const deltas: ModelStreamPart[] = [];
  const stream = provider.stream?.(request, signal ? { signal } : {});
  if (!stream) throw new Error(`${provider.name} cannot stream`);
  try {
    for await (const part of stream) deltas.push(part);
  } catch (error) {
    // What came before the error, closed as an error (a stream needs its finish part).
    const closed: ModelStreamPart = {
      type: "finish",
      finishReason: "error",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    };
    return { deltas, response: await collectResponse(toIterable([...deltas, closed])), error };
  }
  return { deltas, response: await collectResponse(toIterable(deltas), provider.name) };
}

async function* toIterable(parts: ModelStreamPart[]): AsyncGenerator<ModelStreamPart> {
  yield* parts;
}

/** A request with just a user message and the given tools. */
export const userRequest = (content: string, tools: ModelRequest["tools"] = []): ModelRequest => ({
  messages: [{ role: "user", content }],
  tools,
});

/** The text of a response's text parts. */
export const textOf = (response: ModelResponse): string =>
  response.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** The reasoning text of a response. */
export const reasoningOf = (response: ModelResponse): string =>
  response.parts.flatMap((part) => (part.type === "reasoning" ? [part.text] : [])).join("");

/** The tool calls of a response. */
export const callsOf = (response: ModelResponse) =>
  response.parts.flatMap((part) => (part.type === "tool-call" ? [part] : []));

/** A replayed SSE answer; `mode` says how the body is split and paced. */
export const sse = (
  body: string,
  mode: ReplayAnswer,
  contentType = "text/event-stream",
): ReplayAnswer => ({ headers: { "content-type": contentType }, body, ...mode });

/** A replayed JSON answer. */
export const jsonAnswer = (
  body: string,
  status = 200,
  contentType = "application/json",
): ReplayAnswer => ({ status, headers: { "content-type": contentType }, body });
