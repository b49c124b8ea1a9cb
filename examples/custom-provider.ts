/**
 * Custom provider: any model API becomes a `Provider` with `defineProvider`. The "API" here is
 * a made-up client, `tinyModel`, with request and reply shapes of its own; the adapter maps
 * tollgate's request to it and its reply back, in about 20 lines. Give `defineProvider` a
 * `generate` (as `tiny` does) or a `stream` (as `tinyStreaming` does), and it derives the other.
 *
 *   npx tsx examples/custom-provider.ts
 */
import { pathToFileURL } from "node:url";
import type { ModelRequest, RunResult } from "tollgate";
import { AgentLoop, contentText, defineProvider, tool } from "tollgate";
import { z } from "zod";

// ── A made-up model API: stands in for any SDK or HTTP client ──────────────────────────────────

interface TinyReply {
  say?: string;
  invoke?: { fn: string; json: string };
  tokens: { in: number; out: number };
}

const tinyModel = {
  /** Calls `add` first; once it sees a result line, answers with it. */
  async complete(input: { prompt: string[]; functions: string[] }): Promise<TinyReply> {
    const last = input.prompt.at(-1) ?? "";
    if (last.startsWith("result: "))
      return { say: `2 + 3 = ${last.slice(8)}.`, tokens: { in: 14, out: 6 } };
    if (!input.functions.includes("add"))
      return { say: "I cannot add.", tokens: { in: 9, out: 4 } };
    return { invoke: { fn: "add", json: '{"a":2,"b":3}' }, tokens: { in: 10, out: 5 } };
  },
  /** The same answer as events: text in chunks, a call's JSON in pieces, then the token counts. */
  async *stream(input: { prompt: string[]; functions: string[] }): AsyncGenerator<TinyEvent> {
    const reply = await tinyModel.complete(input);
    for (const chunk of reply.say?.split(/(?<= )/) ?? []) yield { kind: "text", chunk };
    if (reply.invoke) {
      const { fn, json } = reply.invoke;
      yield { kind: "call", n: 0, callId: "call_1", fn, json: json.slice(0, 6) };
      yield { kind: "call", n: 0, json: json.slice(6) };
    }
    yield { kind: "done", tokens: reply.tokens, calls: reply.invoke ? 1 : 0 };
  },
};

type TinyEvent =
  | { kind: "text"; chunk: string }
  | { kind: "call"; n: number; callId?: string; fn?: string; json: string }
  | { kind: "done"; tokens: { in: number; out: number }; calls: number };

// ── The adapter ────────────────────────────────────────────────────────────────────────────────

/** tollgate's request in the made-up API's shape. */
const tinyInput = (request: ModelRequest) => ({
  prompt: request.messages.map((message) => {
    if (message.role === "user") return contentText(message.content);
    if (message.role === "tool")
      return `result: ${message.results.map((r) => JSON.stringify(r.output)).join(", ")}`;
    return "(assistant turn)";
  }),
  functions: request.tools.map((t) => t.name),
});

export const tiny = defineProvider({
  name: "tiny",
  model: "tiny-1",
  async generate(request) {
    const input = tinyInput(request);
    const reply = await tinyModel.complete(input);
    const { in: inputTokens, out: outputTokens } = reply.tokens;
    const usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
    if (reply.invoke) {
      const call = {
        type: "tool-call" as const,
        id: `call_${input.prompt.length}`,
        name: reply.invoke.fn,
        args: reply.invoke.json,
      };
      return { parts: [call], finishReason: "tool-calls", usage };
    }
    return { parts: [{ type: "text", text: reply.say ?? "" }], finishReason: "stop", usage };
  },
});

// The same API, streamed: text as it comes, each call's args in pieces, and a finish part last.
export const tinyStreaming = defineProvider({
  name: "tiny-streaming",
  model: "tiny-1",
  async *stream(request) {
    for await (const event of tinyModel.stream(tinyInput(request))) {
      if (event.kind === "text") yield { type: "text-delta", text: event.chunk };
      else if (event.kind === "call") {
        // One call's deltas share its `index`; the first carries its id and name.
        const { n: index, callId: id, fn: name, json: argsDelta } = event;
        yield id && name
          ? { type: "tool-call-delta", index, id, name, argsDelta }
          : { type: "tool-call-delta", index, argsDelta };
      } else {
        // Required, and last: why the model stopped and the usage. Without it the run fails.
        const { in: inputTokens, out: outputTokens } = event.tokens;
        yield {
          type: "finish",
          finishReason: event.calls > 0 ? "tool-calls" : "stop",
          usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
        };
      }
    }
  },
});

// ── Using it ───────────────────────────────────────────────────────────────────────────────────

const add = tool({
  name: "add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

export async function main(): Promise<RunResult> {
  const loop = new AgentLoop({ provider: tiny, tools: [add] });
  const result = await loop.run("What is 2 + 3?");
  console.log(result.text); // 2 + 3 = 5.
  console.log(
    `${result.status} after ${result.steps.length} steps, ${result.usage.totalTokens} tokens`,
  );

  // The streaming adapter: text deltas arrive as events while the model writes.
  const streamed = new AgentLoop({ provider: tinyStreaming, tools: [add] });
  const deltas: string[] = [];
  for await (const event of streamed.stream("What is 2 + 3?")) {
    if (event.type === "text-delta") deltas.push(event.text);
    if (event.type === "run-finish") console.log(`streamed: ${deltas.join("|")} (${event.status})`);
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
