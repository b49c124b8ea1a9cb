import { anthropic, REDACTED_PREFIX } from "tollgate/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { Message, ToolSpec } from "../../src/types/messages.js";
import type { ModelRequest } from "../../src/types/provider.js";
import {
  type ReplayAnswer,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";
import {
  cassette,
  cassetteAnswer,
  chunkLines,
  chunksToSSE,
  exchangeAnswer,
  jsonAnswer,
  recording,
  recordingJson,
  runStream,
  STREAM_MODES,
  sse,
  textOf,
  userRequest,
} from "./support/recordings.js";

const KEY = "sk-ant-test-0000000000";
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(answers: ReplayAnswer[], options: { maxRetries?: number } = {}) {
  server = await startReplayServer(answers);
  return {
    server,
    provider: anthropic({
      model: "claude-haiku-4-5",
      baseURL: `${server.url}/v1`,
      apiKey: KEY,
      ...options,
    }),
  };
}

/** The `data:` payloads of a raw Anthropic SSE text, parsed (a test-side reading of the recording). */
const dataOf = (raw: string): any[] =>
  raw
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));

const deltasOf = (events: any[], type: string, field: string): string =>
  events
    .filter((e) => e.type === "content_block_delta" && e.delta.type === type)
    .map((e) => e.delta[field])
    .join("");

const weatherTool = (body: any): ToolSpec[] =>
  body.tools.map((t: any) => ({
    name: t.name,
    description: t.description ?? "",
    inputSchema: t.input_schema,
  }));

/** A content block without the `caller` field the Python SDK's beta tool runner adds. */
const withoutCaller = (block: any) => {
  const { caller: _, ...rest } = block;
  return rest;
};

describe.each(STREAM_MODES)("anthropic stream, replayed with split %o", (mode) => {
  it("text, a ping, then tool input in fragments (anthropic-sdk-typescript tool_use_response.txt)", async () => {
    const { provider, server } = await serve([
      sse(recording("anthropic/tool_use_response.txt"), mode, "text/event-stream; charset=utf-8"),
    ]);
    const { response, deltas } = await runStream(provider, userRequest("Weather in Paris?"));
    expect(response.parts).toEqual([
      { type: "text", text: "I'll check the current weather in Paris for you." },
      {
        type: "tool-call",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        args: '{"location": "Paris"}',
      },
    ]);
    expect(
      deltas
        .filter((d) => d.type === "tool-call-delta")
        .map((d) => d.type === "tool-call-delta" && d.argsDelta),
    ).toEqual(["", '{"locati', 'on": "P', "ar", 'is"}']);
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 377,
      outputTokens: 65,
      totalTokens: 442,
      cachedInputTokens: 0,
    });
    expect(server.requests[0]?.url).toBe("/v1/messages");
    expect(server.requests[0]?.headers["x-api-key"]).toBe(KEY);
    expect(server.requests[0]?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(server.requests[0]?.json()).toMatchObject({
      stream: true,
      max_tokens: 4096,
      model: "claude-haiku-4-5",
    });
  });

  it("a message that stops inside a tool's input is a ProviderError (anthropic-sdk-typescript incomplete_partial_json_response.txt)", async () => {
    const { provider } = await serve([
      sse(
        recording("anthropic/incomplete_partial_json_response.txt"),
        mode,
        "text/event-stream; charset=utf-8",
      ),
    ]);
    const { error, response } = await runStream(provider, userRequest("taxes"));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(
      'anthropic stopped (max_tokens) in the middle of the input of tool call "make_file" (toolu_01EKqbqmZrGRXy18eN7m9kvY), so the call cannot run; raise maxOutputTokens or ask for less',
    );
    expect((error as ProviderError).retryable).toBe(false);
    expect(textOf(response)).toBe(
      "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
    );
  });

  it("plain text (vercel anthropic-text.chunks.txt)", async () => {
    const lines = chunkLines("anthropic/anthropic-text.chunks.txt");
    const { provider } = await serve([
      sse(chunksToSSE(lines, "typed-events"), mode, "text/event-stream; charset=utf-8"),
    ]);
    const { response } = await runStream(provider, userRequest("How are you?"));
    expect(response.parts).toEqual([
      {
        type: "text",
        text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      },
    ]);
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({
      inputTokens: 12,
      outputTokens: 30,
      totalTokens: 42,
      cachedInputTokens: 0,
    });
  });

  it('a tool without arguments streams only "" and gets "{}" (vercel anthropic-tool-no-args.chunks.txt)', async () => {
    const lines = chunkLines("anthropic/anthropic-tool-no-args.chunks.txt");
    const { provider } = await serve([
      sse(chunksToSSE(lines, "typed-events"), mode, "text/event-stream; charset=utf-8"),
    ]);
    const { response } = await runStream(provider, userRequest("update the issues"));
    expect(response.parts).toEqual([
      { type: "text", text: "I'll update the issue list for you." },
      {
        type: "tool-call",
        id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
        name: "updateIssueList",
        args: "{}",
      },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 565,
      outputTokens: 48,
      totalTokens: 613,
      cachedInputTokens: 0,
    });
  });

  it("thinking with its signature, then text (vercel anthropic-clear-thinking.1.chunks.txt)", async () => {
    const lines = chunkLines("anthropic/anthropic-clear-thinking.1.chunks.txt");
    const { provider } = await serve([
      sse(chunksToSSE(lines, "typed-events"), mode, "text/event-stream; charset=utf-8"),
    ]);
    const { response } = await runStream(provider, userRequest("and divided by 5?"));
    const signature = lines.find((l) => l.delta?.type === "signature_delta").delta.signature;
    expect(response.parts).toEqual([
      {
        type: "reasoning",
        text: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
        signature,
      },
      { type: "text", text: "925 ÷ 5 = 185" },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 69,
      outputTokens: 53,
      totalTokens: 122,
      cachedInputTokens: 0,
    });
  });

  it("thinking streams live and its signature goes back in the next request (pydantic-ai test_anthropic_model_thinking_part_stream.yaml)", async () => {
    const [interaction] = cassette("anthropic/test_anthropic_model_thinking_part_stream.yaml");
    if (!interaction) throw new Error("empty cassette");
    const { provider, server } = await serve([
      cassetteAnswer(interaction, mode),
      cassetteAnswer(interaction, mode),
    ]);
    const recorded = interaction.request.parsed_body;
    const request: ModelRequest = {
      ...userRequest(recorded.messages[0].content[0].text),
      settings: { maxOutputTokens: 4096, thinking: recorded.thinking },
    };
    const { response, deltas } = await runStream(provider, request);
    const events = dataOf(interaction.response.body?.string ?? "");
    const thinking = deltasOf(events, "thinking_delta", "thinking");
    const signature = deltasOf(events, "signature_delta", "signature");
    const thinkingEvents = events.filter(
      (e) => e.delta?.type === "thinking_delta" && e.delta.thinking,
    ).length;
    expect(thinkingEvents).toBeGreaterThan(10);
    expect(deltas.filter((d) => d.type === "reasoning-delta" && d.text !== "")).toHaveLength(
      thinkingEvents,
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: thinking, signature },
      { type: "text", text: deltasOf(events, "text_delta", "text") },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 43,
      outputTokens: 282,
      totalTokens: 325,
      cachedInputTokens: 0,
    });
    const sent = server.requests[0]?.json();
    expect(sent.thinking).toEqual({ budget_tokens: 1024, type: "enabled" });
    expect(sent.max_tokens).toBe(4096);

    await runStream(provider, {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", parts: response.parts },
        { role: "user", content: "thanks" },
      ],
    });
    expect(server.requests[1]?.json().messages).toEqual([
      { role: "user", content: [{ type: "text", text: recorded.messages[0].content[0].text }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking, signature },
          { type: "text", text: deltasOf(events, "text_delta", "text") },
        ],
      },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ]);
  });

  it("a 2-turn tool loop with padded data lines; the result goes back in one user turn (anthropic-sdk-python 555fb399….json)", async () => {
    const exchanges = recordingJson("anthropic/555fb399-a54c-455b-9ac5-2c9673f18e12.json");
    const { provider, server } = await serve(exchanges.map((x: any) => exchangeAnswer(x, mode)));
    const recorded = exchanges[1].request.body;
    const request: ModelRequest = {
      ...userRequest("What is the weather in SF?", weatherTool(exchanges[0].request.body)),
      settings: { maxOutputTokens: 1024 },
    };
    const first = await runStream(provider, request);
    expect(first.response.parts).toEqual([
      {
        type: "tool-call",
        id: "toolu_018acGYLtfR52q9yDbWaEdQZ",
        name: "get_weather",
        args: '{"location": "San Francisco, CA", "units": "f"}',
      },
    ]);
    expect(first.response.usage).toMatchObject({ inputTokens: 656, outputTokens: 74 });
    const result = recorded.messages[2].content[0].content;
    const messages: Message[] = [
      ...request.messages,
      { role: "assistant", parts: first.response.parts },
      {
        role: "tool",
        results: [
          {
            toolCallId: "toolu_018acGYLtfR52q9yDbWaEdQZ",
            toolName: "get_weather",
            output: result,
            isError: false,
          },
        ],
      },
    ];
    const second = await runStream(provider, { ...request, messages });
    expect(textOf(second.response)).toBe(
      "The weather in San Francisco, CA is currently:\n- **Temperature:** 68°F\n- **Condition:** Sunny\n\nIt's a nice sunny day!",
    );
    const sent = server.requests[1]?.json();
    expect(sent.tools).toEqual(recorded.tools);
    expect(sent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is the weather in SF?" }] },
      { role: "assistant", content: recorded.messages[1].content.map(withoutCaller) },
      recorded.messages[2],
    ]);
  });

  it("two 429s with x-should-retry: true, then the stream (anthropic-sdk-python a8b7dbb8….json)", async () => {
    const exchanges = recordingJson("anthropic/a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json");
    const { provider, server } = await serve(exchanges.map((x: any) => exchangeAnswer(x, mode)));
    const { response, error } = await runStream(provider, userRequest("Extract order IDs"));
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(response.parts).toEqual([{ type: "text", text: "[12345,67890]" }]);
    expect(response.usage).toMatchObject({ inputTokens: 135, outputTokens: 10 });
  });
});

describe("anthropic stream: mid-stream errors and truncation", () => {
  // The documented shape of a mid-stream error (not in the recordings, see SOURCES.md): an
  // `event: error` frame after some deltas, then the connection closes without message_stop.
  const prefix =
    recording("anthropic/tool_use_response.txt").split("event: content_block_stop")[0] ?? "";

  it("an overloaded_error frame is a retryable ProviderError with Anthropic's message", async () => {
    const frame =
      'event: error\ndata: {"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}\n\n';
    const { provider } = await serve([sse(prefix + frame, {})]);
    const { error, response } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).message).toBe(
      "anthropic reported an error (overloaded_error): Overloaded",
    );
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).status).toBeUndefined();
    expect(textOf(response)).toBe("I'll check the current weather in Paris for you.");
  });

  it("an invalid_request_error frame is not retryable", async () => {
    const frame =
      'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}\n\n';
    const { provider } = await serve([sse(prefix + frame, {})]);
    const { error } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).retryable).toBe(false);
  });

  it("streams no deltas for a server tool's input (web search runs on Anthropic's side)", async () => {
    const event = (data: object) => `event: x\ndata: ${JSON.stringify(data)}\n\n`;
    const body = [
      event({ type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } }),
      event({
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      }),
      event({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"query":"x"}' },
      }),
      event({ type: "content_block_stop", index: 0 }),
      event({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
      event({
        type: "content_block_delta",
        index: 1,
        delta: { type: "text_delta", text: "Found it." },
      }),
      event({ type: "content_block_stop", index: 1 }),
      event({
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 9 },
      }),
      event({ type: "message_stop" }),
    ].join("");
    const { provider } = await serve([sse(body, {})]);
    const { response, deltas } = await runStream(provider, userRequest("search"));
    expect(deltas.some((d) => d.type === "tool-call-delta")).toBe(false);
    expect(response.parts).toEqual([{ type: "text", text: "Found it." }]);
    expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 9, totalTokens: 14 });
  });

  it("a stream that ends without message_stop is a ProviderError", async () => {
    const { provider } = await serve([sse(prefix, {})]);
    const { error } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).message).toMatch(/^anthropic stream ended before message_stop/);
  });
});

describe("anthropic generate", () => {
  it("text (vercel anthropic-text.json)", async () => {
    const { provider } = await serve([jsonAnswer(recording("anthropic/anthropic-text.json"))]);
    const response = await provider.generate(userRequest("How are you?"), {});
    expect(response.parts).toEqual([
      {
        type: "text",
        text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
      },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 12,
      outputTokens: 29,
      totalTokens: 41,
      cachedInputTokens: 0,
    });
  });

  it("text and a tool_use with input {} (vercel anthropic-tool-no-args.json)", async () => {
    const file = "anthropic/anthropic-tool-no-args.json";
    const { provider } = await serve([jsonAnswer(recording(file))]);
    const response = await provider.generate(userRequest("update the issues"), {});
    expect(response.parts).toEqual([
      { type: "text", text: recordingJson(file).content[0].text },
      {
        type: "tool-call",
        id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1",
        name: "updateIssueList",
        args: "{}",
      },
    ]);
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 602,
      outputTokens: 93,
      totalTokens: 695,
      cachedInputTokens: 0,
    });
  });

  it("a tool_use, then a 400 with x-should-retry: false and Anthropic's message (anthropic-sdk-python f59a9391….json)", async () => {
    const exchanges = recordingJson("anthropic/f59a9391-643b-422c-96dc-1f28bc7ea4d7.json");
    const { provider, server } = await serve(exchanges.map((x: any) => exchangeAnswer(x)));
    const request = userRequest(
      "What's the weather in SF in Celsius?",
      weatherTool(exchanges[0].request.body),
    );
    const first = await provider.generate(request, {});
    expect(first.parts).toEqual([
      {
        type: "tool-call",
        id: "toolu_01GHndag5wQmbzNihYmV2UBj",
        name: "get_weather",
        args: '{"location":"San Francisco, CA","units":"c"}',
      },
    ]);
    const error = (await provider
      .generate(
        {
          ...request,
          messages: [
            ...request.messages,
            { role: "assistant", parts: first.parts },
            {
              role: "tool",
              results: [
                {
                  toolCallId: "toolu_01GHndag5wQmbzNihYmV2UBj",
                  toolName: "get_weather",
                  output: "20°C",
                  isError: false,
                },
              ],
            },
          ],
        },
        {},
      )
      .catch((e) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `anthropic returned HTTP 400 invalid_request_error: messages.0.content.1: unexpected \`tool_use_id\` found in \`tool_result\` blocks: toolu_01GHndag5wQmbzNihYmV2UBj. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message. (POST ${server.url}/v1/messages)`,
    );
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(2);
    // The recorded client sent a tool_result with no tool_use before it; this adapter pairs them.
    const sent = server.requests[1]?.json().messages;
    expect(sent.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1].content[0]).toMatchObject({
      type: "tool_use",
      id: "toolu_01GHndag5wQmbzNihYmV2UBj",
    });
    expect(sent[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_01GHndag5wQmbzNihYmV2UBj", content: "20°C" },
    ]);
  });

  it("replays the 10 exchanges of the TypeScript SDK's tool runner, requests included (ToolRunner.json)", async () => {
    const exchanges = recordingJson("anthropic/ToolRunner.json");
    const answers = exchanges.map((x: any) => ({
      status: x.status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(x.response),
    }));
    const { provider, server } = await serve(answers);
    for (const [i, exchange] of exchanges.entries()) {
      const recorded = exchange.body;
      // Rebuild the transcript the recorded request carries, then let the adapter write it.
      const messages: Message[] = [];
      for (const m of recorded.messages) {
        if (m.role === "user" && typeof m.content === "string")
          messages.push({ role: "user", content: m.content });
        else if (m.role === "user" && m.content[0].type === "text")
          messages.push({ role: "user", content: m.content[0].text });
        else if (m.role === "user") {
          messages.push({
            role: "tool",
            results: m.content.map((b: any) => ({
              toolCallId: b.tool_use_id,
              toolName: "test_tool",
              output: b.content,
              isError: false,
            })),
          });
        } else {
          messages.push({
            role: "assistant",
            parts: m.content.map((b: any) =>
              b.type === "text"
                ? { type: "text", text: b.text }
                : { type: "tool-call", id: b.id, name: b.name, args: JSON.stringify(b.input) },
            ),
          });
        }
      }
      const tools: ToolSpec[] = (recorded.tools ?? []).map((t: any) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.input_schema,
      }));
      const response = await provider.generate(
        { messages, tools, settings: { maxOutputTokens: recorded.max_tokens } },
        {},
      );
      const sent = server.requests[i]?.json();
      // Block form, with consecutive turns of one role merged (the API merges them too).
      const normalized = (ms: any[]) =>
        ms.reduce((out: any[], m) => {
          const content =
            typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
          if (out.at(-1)?.role === m.role) out.at(-1).content.push(...content);
          else out.push({ role: m.role, content: [...content] });
          return out;
        }, []);
      expect(sent.messages, `request ${i}`).toEqual(normalized(recorded.messages));
      expect(sent.max_tokens).toBe(recorded.max_tokens);
      const blocks = exchange.response.content;
      expect(response.parts, `response ${i}`).toEqual(
        blocks.map((b: any) =>
          b.type === "text"
            ? { type: "text", text: b.text }
            : { type: "tool-call", id: b.id, name: b.name, args: JSON.stringify(b.input) },
        ),
      );
      expect(response.usage.outputTokens).toBe(exchange.response.usage.output_tokens);
      expect(response.finishReason).toBe(
        exchange.response.stop_reason === "tool_use" ? "tool-calls" : "stop",
      );
    }
    // Exchange 3 answers two parallel calls: both results travel in ONE user turn.
    const third = server.requests[3]?.json().messages;
    expect(third[2].content.map((b: any) => b.type)).toEqual(["tool_result", "tool_result"]);
  });
});

describe("anthropic request shape", () => {
  it("maps system, tool results (errors too), thinking, tool choice and settings", async () => {
    const { provider, server } = await serve([
      jsonAnswer(recording("anthropic/anthropic-text.json")),
    ]);
    await provider.generate(
      {
        system: "be brief",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            parts: [
              { type: "reasoning", text: "unsigned thoughts are not sent" },
              { type: "reasoning", text: "", signature: `${REDACTED_PREFIX}opaque-data` },
              { type: "reasoning", text: "signed", signature: "EqoB" },
              { type: "text", text: "" },
              { type: "tool-call", id: "t1", name: "a", args: '{"x":1}' },
              { type: "tool-call", id: "t2", name: "b", args: "not json" },
            ],
          },
          {
            role: "tool",
            results: [
              { toolCallId: "t1", toolName: "a", output: { ok: true }, isError: false },
              { toolCallId: "t2", toolName: "b", output: "invalid JSON", isError: true },
            ],
          },
          { role: "user", content: "go on" },
        ],
        tools: [{ name: "a", description: "A", inputSchema: { type: "object", properties: {} } }],
        toolChoice: "required",
        settings: {
          temperature: 0.5,
          topP: 0.8,
          maxOutputTokens: 300,
          stopSequences: ["STOP"],
          seed: 1,
          top_k: 5,
        },
      },
      {},
    );
    expect(server.requests[0]?.json()).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 300,
      system: "be brief",
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        {
          role: "assistant",
          content: [
            { type: "redacted_thinking", data: "opaque-data" },
            { type: "thinking", thinking: "signed", signature: "EqoB" },
            { type: "tool_use", id: "t1", name: "a", input: { x: 1 } },
            { type: "tool_use", id: "t2", name: "b", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: '{"ok":true}' },
            { type: "tool_result", tool_use_id: "t2", content: "invalid JSON", is_error: true },
            { type: "text", text: "go on" },
          ],
        },
      ],
      tools: [{ name: "a", description: "A", input_schema: { type: "object", properties: {} } }],
      tool_choice: { type: "any" },
      temperature: 0.5,
      top_p: 0.8,
      stop_sequences: ["STOP"],
      top_k: 5,
    });
  });

  it("refuses to send without a key, naming ANTHROPIC_API_KEY", async () => {
    server = await startReplayServer([]);
    const provider = anthropic({ model: "claude-haiku-4-5", baseURL: server.url });
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const error = (await provider
        .generate(userRequest("hi"), {})
        .catch((e) => e)) as ProviderError;
      expect(error.message).toBe("anthropic: no API key; pass `apiKey` or set ANTHROPIC_API_KEY");
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});
