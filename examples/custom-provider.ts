/**
 * Custom provider: any model API becomes a `Provider` with `defineProvider`. The "API" here is
 * a made-up client, `tinyModel`, with request and reply shapes of its own; the adapter maps
 * tollgate's request to it and its reply back, in about 20 lines. Give `defineProvider` a
 * `generate` (as here) or a `stream`, and it derives the other.
 *
 *   npx tsx examples/custom-provider.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
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
};

// ── The adapter ────────────────────────────────────────────────────────────────────────────────

export const tiny = defineProvider({
  name: "tiny",
  model: "tiny-1",
  async generate(request) {
    const prompt = request.messages.map((message) => {
      if (message.role === "user") return contentText(message.content);
      if (message.role === "tool")
        return `result: ${message.results.map((r) => JSON.stringify(r.output)).join(", ")}`;
      return "(assistant turn)";
    });
    const reply = await tinyModel.complete({ prompt, functions: request.tools.map((t) => t.name) });
    const { in: inputTokens, out: outputTokens } = reply.tokens;
    const usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
    if (reply.invoke) {
      const call = {
        type: "tool-call" as const,
        id: `call_${prompt.length}`,
        name: reply.invoke.fn,
        args: reply.invoke.json,
      };
      return { parts: [call], finishReason: "tool-calls", usage };
    }
    return { parts: [{ type: "text", text: reply.say ?? "" }], finishReason: "stop", usage };
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
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
