/**
 * The bytes the real-HTTP stand-in (real-http-server.ts) answers with, built from the real
 * recordings in test/fixtures/real (see its SOURCES.md): per API, one recorded tool-call answer
 * and one recorded text answer, streamed (SSE, as recorded) and whole (JSON). Only the content
 * is swapped, field by field: the tool becomes `get_weather`, its arguments `{"city":"Oslo"}`
 * (streamed in the recording's fragments), its call id one per step; the text becomes 20 deltas
 * (the first 20 content deltas of the recorded OpenAI text stream). Every other field, event
 * and frame is the recording's; Anthropic's whitespace padding inside `data:` lines is kept.
 *
 * Pure and shared: the server builds its answers with it and the clients check their results
 * against `ANSWER_DELTAS`. Imports only node:fs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The four wire formats. */
export const APIS = ["chat", "responses", "anthropic", "gemini"] as const;
/** One of `APIS`. */
export type Api = (typeof APIS)[number];

/** What each API is called in the report. */
export const API_NAMES: Record<Api, string> = {
  chat: "OpenAI Chat Completions",
  responses: "OpenAI Responses",
  anthropic: "Anthropic Messages",
  gemini: "Gemini generateContent",
};

/** The model id of each API's recordings (sent by both clients; the stand-in ignores it). */
export const MODELS: Record<Api, string> = {
  chat: "gpt-4o-2024-08-06",
  responses: "gpt-5.1-codex-max",
  anthropic: "claude-haiku-4-5-20251001",
  gemini: "gemini-3-pro-preview",
};

/** The tool both clients declare and the model calls. */
export const TOOL = "get_weather";
/** Its arguments, whole. */
export const ARGS = '{"city":"Oslo"}';
/** Its arguments as streamed, in the fragments the recorded OpenAI stream cut its own into. */
const ARG_PIECES = ['{"', "city", '":"', "Oslo", '"}'];
/** Text deltas of the final answer. */
export const TEXT_DELTAS = 20;

/** One answer: a JSON body, or the SSE frames of a stream (written one by one). */
export interface WireAnswer {
  contentType: string;
  /** The whole body (the frames joined, for a stream). */
  body: string;
  /** A stream's frames, each written on its own. */
  frames?: string[];
}

/** What the stand-in answers for one API. */
export interface Wire {
  /** The answer of tool step `step` (0-based). */
  toolCall(step: number, stream: boolean): WireAnswer;
  text(stream: boolean): WireAnswer;
}

const read = (fixtures: string, path: string) => readFileSync(join(fixtures, path), "utf8");
const lines = (text: string): any[] =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
const clone = <T>(value: T): T => structuredClone(value);

/** The 20 text deltas of the final answer: the first content deltas of a recorded OpenAI text stream. */
export function answerDeltas(fixtures: string): string[] {
  const chunks = lines(read(fixtures, "openai-chat/openai-text.chunks.txt"));
  const deltas = chunks
    .map((chunk) => chunk.choices?.[0]?.delta?.content as string | undefined)
    .filter((content): content is string => typeof content === "string" && content !== "");
  return deltas.slice(0, TEXT_DELTAS);
}

/** A call id of the recording's shape, one per step: its last characters become the step. */
const stepId = (recorded: string, step: number) =>
  `${recorded.slice(0, -3)}${String(step).padStart(3, "0")}`;

const json = (body: unknown): WireAnswer => ({
  contentType: "application/json",
  body: JSON.stringify(body),
});
const stream = (contentType: string, frames: string[]): WireAnswer => ({
  contentType,
  body: frames.join(""),
  frames,
});

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions: c6aa7e….bin (a streamed gpt-4o tool call), openai-text.chunks.txt
// (a streamed gpt-4.1-nano text answer), and their non-streamed counterparts.

function chatWire(fixtures: string, deltas: string[]): Wire {
  const toolFrames = read(
    fixtures,
    "openai-chat/c6aa7e397b7123c3501f25df3a05d4daf7e8ad6d61ffa406ab5361fe36a8d5b1.bin",
  )
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: {"))
    .map((frame) => JSON.parse(frame.slice(6)));
  // First chunk: role + the call's id and name; then argument fragments; then finish, usage.
  const [head, fragment] = toolFrames;
  const tail = toolFrames.filter((chunk) => !chunk.choices[0]?.delta?.tool_calls);
  const toolJson = JSON.parse(
    read(fixtures, "openai-chat/test_completions.test_parse_pydantic_tool.json"),
  );
  const textChunks = lines(read(fixtures, "openai-chat/openai-text.chunks.txt"));
  const role = textChunks[0];
  const content = textChunks.find((chunk) => chunk.choices[0]?.delta?.content);
  const textTail = textChunks.filter(
    (chunk) => !chunk.choices[0] || chunk.choices[0].finish_reason,
  );
  const textJson = JSON.parse(read(fixtures, "openai-chat/openai-text.json"));
  const frames = (chunks: unknown[]) =>
    stream("text/event-stream; charset=utf-8", [
      ...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
      "data: [DONE]\n\n",
    ]);
  return {
    toolCall(step, streamed) {
      const id = stepId(head.choices[0].delta.tool_calls[0].id, step);
      if (!streamed) {
        const body = clone(toolJson);
        const call = body.choices[0].message.tool_calls[0];
        call.id = id;
        call.function = { name: TOOL, arguments: ARGS };
        return json(body);
      }
      const first = clone(head);
      first.choices[0].delta.tool_calls[0].id = id;
      first.choices[0].delta.tool_calls[0].function.name = TOOL;
      const pieces = ARG_PIECES.map((piece) => {
        const chunk = clone(fragment);
        chunk.choices[0].delta.tool_calls[0].function.arguments = piece;
        return chunk;
      });
      return frames([first, ...pieces, ...tail]);
    },
    text(streamed) {
      if (!streamed) {
        const body = clone(textJson);
        body.choices[0].message.content = deltas.join("");
        return json(body);
      }
      const pieces = deltas.map((delta) => {
        const chunk = clone(content);
        chunk.choices[0].delta.content = delta;
        return chunk;
      });
      return frames([role, ...pieces, ...textTail]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: openai-reasoning-encrypted-content.1.chunks.txt, a real four-response agent
// loop (gpt-5.1-codex-max): its second response (a function call, no reasoning) and its last (the
// text answer). Not streamed: the `response` object of their `response.completed` events, which
// is the body the API returns without `stream`.

function responsesWire(fixtures: string, deltas: string[]): Wire {
  const events = lines(
    read(fixtures, "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt"),
  );
  const starts = events.flatMap((event, i) => (event.type === "response.created" ? [i] : []));
  const toolEvents = events.slice(starts[1], starts[2]);
  const textEvents = events.slice(starts[starts.length - 1]);
  const frames = (list: any[]) =>
    stream(
      "text/event-stream; charset=utf-8",
      list.map((event, i) => {
        event.sequence_number = i;
        return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
      }),
    );
  const completed = (list: any[]) => list.find((event) => event.type === "response.completed");
  const setCall = (item: any, id: string) => {
    if (item?.type !== "function_call") return;
    item.call_id = id;
    item.name = TOOL;
    if (item.status === "completed") item.arguments = ARGS;
  };
  const setText = (item: any, text: string) => {
    if (item?.type === "message") for (const part of item.content) part.text = text;
  };
  return {
    toolCall(step, streamed) {
      const list = clone(toolEvents);
      const added = list.find((event) => event.type === "response.output_item.added");
      const id = stepId(added.item.call_id, step);
      for (const event of list) {
        setCall(event.item, id);
        for (const item of event.response?.output ?? []) setCall(item, id);
        if (event.type === "response.function_call_arguments.done") event.arguments = ARGS;
      }
      if (!streamed) return json(completed(list).response);
      const fragment = list.find(
        (event) => event.type === "response.function_call_arguments.delta",
      );
      const pieces = ARG_PIECES.map((piece) => ({ ...clone(fragment), delta: piece }));
      const at = list.indexOf(fragment);
      const rest = list.filter((event) => event.type !== "response.function_call_arguments.delta");
      return frames([...rest.slice(0, at), ...pieces, ...rest.slice(at)]);
    },
    text(streamed) {
      const list = clone(textEvents);
      const text = deltas.join("");
      for (const event of list) {
        setText(event.item, text);
        for (const item of event.response?.output ?? []) setText(item, text);
        if (event.type === "response.output_text.done") event.text = text;
        if (event.type === "response.content_part.done") event.part.text = text;
      }
      if (!streamed) return json(completed(list).response);
      const template = list.find((event) => event.type === "response.output_text.delta");
      const pieces = deltas.map((delta) => ({ ...clone(template), delta }));
      const at = list.indexOf(template);
      const rest = list.filter((event) => event.type !== "response.output_text.delta");
      return frames([...rest.slice(0, at), ...pieces, ...rest.slice(at)]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages: 555fb399….json, a real two-turn tool loop (claude-haiku-4-5, raw SSE with
// the API's padding); not streamed: ToolRunner.json's first two exchanges (tool_use, end_turn).

/**
 * One frame of a raw Anthropic stream: its event name, data, the padding before the data's last
 * `}`, and (until the frame is changed) its recorded text.
 */
interface PaddedFrame {
  event: string;
  data: any;
  pad: string;
  raw: string | undefined;
}

function paddedFrames(sse: string): PaddedFrame[] {
  return sse
    .split("\n\n")
    .filter((frame) => frame.includes("data: "))
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)![1]!;
      const raw = /^data: (.*)$/m.exec(frame)![1]!;
      return {
        event,
        data: JSON.parse(raw),
        pad: /(\s*)\}$/.exec(raw)![1]!,
        raw: `${frame}\n\n`,
      };
    });
}

const paddedFrame = ({ event, data, pad, raw }: PaddedFrame) =>
  raw ?? `event: ${event}\ndata: ${JSON.stringify(data).slice(0, -1)}${pad}}\n\n`;

function anthropicWire(fixtures: string, deltas: string[]): Wire {
  const exchanges = JSON.parse(
    read(fixtures, "anthropic/555fb399-a54c-455b-9ac5-2c9673f18e12.json"),
  ) as { response: { body: string } }[];
  const toolFrames = paddedFrames(exchanges[0]!.response.body);
  const recordedId = toolFrames.find((frame) => frame.event === "content_block_start")!.data
    .content_block.id as string;
  const textFrames = paddedFrames(exchanges[1]!.response.body);
  const runner = JSON.parse(read(fixtures, "anthropic/ToolRunner.json")) as { response: any }[];
  const toolJson = runner[0]!.response;
  const textJson = runner[1]!.response;
  const isDelta = (frame: PaddedFrame, type: string) =>
    frame.event === "content_block_delta" && frame.data.delta?.type === type;
  const splice = (frames: PaddedFrame[], type: string, pieces: string[], field: string) => {
    const at = frames.findIndex((frame) => isDelta(frame, type));
    const template = frames[at]!;
    const made = pieces.map((piece) => {
      const frame = clone(template);
      frame.data.delta[field] = piece;
      frame.raw = undefined;
      return frame;
    });
    const rest = frames.filter((frame) => !isDelta(frame, type));
    return [...rest.slice(0, at), ...made, ...rest.slice(at)];
  };
  const frames = (list: PaddedFrame[]) =>
    stream("text/event-stream; charset=utf-8", list.map(paddedFrame));
  return {
    toolCall(step, streamed) {
      if (!streamed) {
        const body = clone(toolJson);
        // The recording's tool turn opens with a sentence; the stand-in's tool turns are the call alone.
        body.content = body.content.filter((block: any) => block.type === "tool_use");
        body.content[0].id = stepId(recordedId, step);
        body.content[0].name = TOOL;
        body.content[0].input = JSON.parse(ARGS);
        return json(body);
      }
      const list = clone(toolFrames);
      const start = list.find((frame) => frame.event === "content_block_start")!;
      start.data.content_block.id = stepId(recordedId, step);
      start.data.content_block.name = TOOL;
      start.raw = undefined;
      // The recording's first fragment is "" (as the API sends), then the arguments.
      return frames(splice(list, "input_json_delta", ["", ...ARG_PIECES], "partial_json"));
    },
    text(streamed) {
      if (!streamed) {
        const body = clone(textJson);
        body.content[0].text = deltas.join("");
        return json(body);
      }
      return frames(splice(clone(textFrames), "text_delta", deltas, "text"));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Gemini: google-tool-call.chunks.txt / .json and google-text.chunks.txt / .json
// (gemini-3-pro-preview, thought signatures included). Frames end in CRLF CRLF, as the API's do.

function geminiWire(fixtures: string, deltas: string[]): Wire {
  const toolChunks = lines(read(fixtures, "google/google-tool-call.chunks.txt"));
  const toolJson = JSON.parse(read(fixtures, "google/google-tool-call.json"));
  const textChunks = lines(read(fixtures, "google/google-text.chunks.txt"));
  const textJson = JSON.parse(read(fixtures, "google/google-text.json"));
  const setCall = (chunk: any) => {
    for (const part of chunk.candidates[0].content.parts) {
      if (part.functionCall) part.functionCall = { name: TOOL, args: JSON.parse(ARGS) };
    }
    return chunk;
  };
  const frames = (chunks: unknown[]) =>
    stream(
      "text/event-stream",
      chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`),
    );
  return {
    // Gemini's calls carry no id (clients make one up), so every step's answer is the same.
    toolCall(_step, streamed) {
      return streamed
        ? frames(toolChunks.map((chunk) => setCall(clone(chunk))))
        : json(setCall(clone(toolJson)));
    },
    text(streamed) {
      if (!streamed) {
        const body = clone(textJson);
        body.candidates[0].content.parts[0].text = deltas.join("");
        return json(body);
      }
      // Each text chunk like the recording's first; its last chunk (signature, finishReason) closes.
      const pieces = deltas.map((delta) => {
        const chunk = clone(textChunks[0]);
        chunk.candidates[0].content.parts[0].text = delta;
        return chunk;
      });
      return frames([...pieces, textChunks[textChunks.length - 1]]);
    },
  };
}

/** The stand-in's answers for every API, built from the recordings under `fixtures`. */
export function buildWires(fixtures: string): Record<Api, Wire> {
  const deltas = answerDeltas(fixtures);
  return {
    chat: chatWire(fixtures, deltas),
    responses: responsesWire(fixtures, deltas),
    anthropic: anthropicWire(fixtures, deltas),
    gemini: geminiWire(fixtures, deltas),
  };
}

// ---------------------------------------------------------------------------------------------
// reading a request

/** What a request carries back: its tool results, and the call id (or, for Gemini, the name) of the last. */
export interface ToolResults {
  count: number;
  last: string | undefined;
}

/** The tool results a request body sends back, in the API's shape. */
export function toolResults(api: Api, body: any): ToolResults {
  let ids: string[];
  switch (api) {
    case "chat":
      ids = (body.messages ?? [])
        .filter((message: any) => message.role === "tool")
        .map((message: any) => message.tool_call_id);
      break;
    case "responses":
      ids = (Array.isArray(body.input) ? body.input : [])
        .filter((item: any) => item.type === "function_call_output")
        .map((item: any) => item.call_id);
      break;
    case "anthropic":
      ids = (body.messages ?? [])
        .flatMap((message: any) => (Array.isArray(message.content) ? message.content : []))
        .filter((block: any) => block.type === "tool_result")
        .map((block: any) => block.tool_use_id);
      break;
    case "gemini":
      ids = (body.contents ?? [])
        .flatMap((content: any) => content.parts ?? [])
        .filter((part: any) => part.functionResponse)
        .map((part: any) => part.functionResponse.name);
      break;
  }
  return { count: ids.length, last: ids[ids.length - 1] };
}

/** What the last tool result of a request after `step` + 1 tool steps must carry back. */
export function expectedResult(wire: Wire, api: Api, step: number): string {
  if (api === "gemini") return TOOL;
  const answer = JSON.parse(wire.toolCall(step, false).body);
  switch (api) {
    case "chat":
      return answer.choices[0].message.tool_calls[0].id;
    case "responses":
      return answer.output.find((item: any) => item.type === "function_call").call_id;
    case "anthropic":
      return answer.content[0].id;
  }
}
