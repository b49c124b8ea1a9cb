import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AgentLoop,
  defineProvider,
  type LoopEvent,
  ProviderError,
  type RunState,
  tool,
} from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { otelListener } from "tollgate/otel";
import { scriptedProvider } from "tollgate/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

/**
 * Issue 24, section 5 (honest errors): usage a provider did not report is unknown, not 0.
 */

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sse = (body: string) => ({ headers: { "content-type": "text/event-stream" }, body });
const json = (body: unknown) => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** An OpenAI-compatible stream (as Ollama or vLLM send it without `stream_options`): no usage chunk. */
function chatStream(delta: object, finish: string): string {
  const frame = (d: object, f: string | null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: f }] })}\n\n`;
  return [frame(delta, null), frame({}, finish), "data: [DONE]\n\n"].join("");
}

const toolCallDelta = {
  tool_calls: [{ index: 0, id: "c1", function: { name: "lookup", arguments: '{"q":"x"}' } }],
};

const lookup = tool({
  name: "lookup",
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
});

async function chatLoop(answers: { headers: Record<string, string>; body: string }[], limits = {}) {
  server = await startReplayServer(answers);
  const provider = openAIChat({ model: "local", baseURL: `${server.url}/v1`, apiKey: "sk-test" });
  const events: LoopEvent[] = [];
  const loop = new AgentLoop({
    provider,
    tools: [lookup],
    limits,
    onEvent: (event) => events.push(event),
  });
  return { loop, events };
}

const UNKNOWN = { inputTokens: 0, outputTokens: 0, totalTokens: 0, unknown: true };

describe("usage a provider did not report is unknown, not 0/0/0", () => {
  it("an OpenAI-compatible stream from a real HTTP server without a usage chunk: usage.unknown, in the step, the event and the run", async () => {
    const { loop, events } = await chatLoop([
      sse(chatStream(toolCallDelta, "tool_calls")),
      sse(chatStream({ content: "done" }, "stop")),
    ]);
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.usage).toEqual(UNKNOWN);
    expect(result.steps.map((step) => step.usage)).toEqual([UNKNOWN, UNKNOWN]);
    const responses = events.filter((e) => e.type === "model-response");
    expect(responses.map((e) => e.usage.unknown)).toEqual([true, true]);
    expect(server!.requests[0]!.json().stream_options).toEqual({ include_usage: true });
  });

  it("one reported step and one unreported: the sum has the reported counts and says unknown", async () => {
    const usageFrame = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } })}\n\n`;
    const reported = chatStream(toolCallDelta, "tool_calls").replace(
      "data: [DONE]",
      `${usageFrame.trimEnd()}\n\ndata: [DONE]`,
    );
    const { loop } = await chatLoop([sse(reported), sse(chatStream({ content: "ok" }, "stop"))]);
    const result = await loop.run("go");
    expect(result.steps[0]!.usage).toEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14 });
    expect(result.usage).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 14,
      unknown: true,
    });
  });

  it("a token limit with unknown usage fails closed: no second model call, limit.unknown says why", async () => {
    const { loop } = await chatLoop(
      [sse(chatStream(toolCallDelta, "tool_calls")), sse(chatStream({ content: "x" }, "stop"))],
      { totalTokens: 10_000 },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("limit_reached");
    expect(result.limit).toEqual({ name: "totalTokens", value: 10_000, used: 0, unknown: true });
    expect(server!.requests).toHaveLength(1);
    // A limit that is not about tokens is not affected.
    const { loop: calls } = await chatLoop(
      [sse(chatStream(toolCallDelta, "tool_calls")), sse(chatStream({ content: "x" }, "stop"))],
      { modelCalls: 5 },
    );
    expect((await calls.run("go")).status).toBe("completed");
  });

  it("the other adapters: no usage object in the answer is unknown usage", async () => {
    const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
    server = await startReplayServer([
      json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [{ type: "text", text: "hi" }],
        stop_reason: "end_turn",
      }),
      json({
        candidates: [{ content: { role: "model", parts: [{ text: "hi" }] }, finishReason: "STOP" }],
      }),
      json({
        id: "resp_1",
        object: "response",
        status: "completed",
        output: [
          {
            type: "message",
            id: "m1",
            role: "assistant",
            content: [{ type: "output_text", text: "hi" }],
          },
        ],
      }),
    ]);
    const providers = [
      anthropic({ model: "claude-haiku-4-5", baseURL: `${server.url}/v1`, apiKey: "sk-ant" }),
      gemini({ model: "gemini-2.0-flash", baseURL: `${server.url}/v1beta`, apiKey: "AIza" }),
      openAIResponses({ model: "gpt-5", baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
    ];
    for (const provider of providers) {
      const response = await provider.generate(request, {});
      expect(response.usage, provider.name).toEqual(UNKNOWN);
    }
  });

  it("unknown usage survives a paused run's JSON state and stays unknown after resume", async () => {
    const send = tool({
      name: "send",
      input: z.object({}),
      needsApproval: true,
      execute: () => "sent",
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "send", args: {} }], usage: { unknown: true } },
        { text: "done", usage: { inputTokens: 3, outputTokens: 1 } },
      ]),
      tools: [send],
      trustState: true,
    });
    const paused = await loop.run("go");
    expect(paused.usage).toEqual(UNKNOWN);
    const state: RunState = JSON.parse(JSON.stringify(paused.state));
    const id = paused.pending![0]!.toolCallId;
    const result = await loop.resume(state, { [id]: { approve: true } });
    expect(result.status).toBe("completed");
    expect(result.usage).toEqual({
      inputTokens: 3,
      outputTokens: 1,
      totalTokens: 4,
      unknown: true,
    });
  });

  it("a provider's `usage.unknown` must be true or left out (ProviderError otherwise)", async () => {
    const provider = defineProvider({
      name: "odd",
      model: "odd",
      generate: async () => ({
        parts: [{ type: "text", text: "hi" }],
        finishReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, unknown: "yes" as never },
      }),
    });
    const error = await new AgentLoop({ provider }).run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/usage\.unknown must be true/);
  });

  it("tracing leaves the token counts out when they are unknown (never a 0), and says so", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }).getTracer("usage");
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "lookup", args: { q: "a" } }], usage: { unknown: true } },
        { text: "done", usage: { inputTokens: 5, outputTokens: 2 } },
      ]),
      tools: [lookup],
      onEvent: otelListener(tracer),
    });
    await loop.run("go");
    const spans = exporter.getFinishedSpans();
    const attrs = (span: ReadableSpan | undefined) => span?.attributes ?? {};
    const chats = spans.filter((span) => span.name.startsWith("chat"));
    const run = spans.find((span) => span.name.startsWith("invoke_agent"));
    expect(chats).toHaveLength(2);
    expect(attrs(chats[0])["gen_ai.usage.input_tokens"]).toBeUndefined();
    expect(attrs(chats[0])["gen_ai.usage.output_tokens"]).toBeUndefined();
    expect(attrs(chats[0])["tollgate.usage.unknown"]).toBe(true);
    expect(attrs(chats[1])["gen_ai.usage.input_tokens"]).toBe(5);
    expect(attrs(chats[1])["tollgate.usage.unknown"]).toBeUndefined();
    // The run's sum is not known either: a lower bound would pass for the whole.
    expect(attrs(run)["gen_ai.usage.input_tokens"]).toBeUndefined();
    expect(attrs(run)["tollgate.usage.unknown"]).toBe(true);
  });
});
