import { openAIChat } from "tollgate/openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { Message, ToolSpec } from "../../src/types/messages.js";
import type { ModelRequest } from "../../src/types/provider.js";
import {
  type ReplayAnswer,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";
import {
  callsOf,
  cassette,
  cassetteAnswer,
  chunkLines,
  chunksToSSE,
  jsonAnswer,
  reasoningOf,
  recording,
  recordingJson,
  runStream,
  STREAM_MODES,
  sse,
  textOf,
  userRequest,
} from "./support/recordings.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function serve(answers: ReplayAnswer[]) {
  server = await startReplayServer(answers);
  return {
    server,
    provider: openAIChat({
      model: "gpt-4o",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-test-key-000",
    }),
  };
}

describe.each(STREAM_MODES)("openAIChat stream, replayed with split %o", (mode) => {
  it("two parallel tool calls with fragmented args (openai-python f82268…bin)", async () => {
    const body = recording(
      "openai-chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
    );
    const { provider, server } = await serve([sse(body, mode)]);
    const { response, deltas } = await runStream(provider, userRequest("weather and stock"));
    expect(callsOf(response)).toEqual([
      {
        type: "tool-call",
        id: "call_JMW1whyEaYG438VE1OIflxA2",
        name: "GetWeatherArgs",
        args: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      {
        type: "tool-call",
        id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
        name: "get_stock_price",
        args: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ]);
    expect(deltas.filter((d) => d.type === "tool-call-delta").length).toBeGreaterThan(10);
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 149,
      outputTokens: 60,
      totalTokens: 209,
      reasoningTokens: 0,
    });
    const sent = server.requests[0]?.json();
    expect(server.requests[0]?.url).toBe("/v1/chat/completions");
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
  });

  it("one tool call whose first chunk carries id and name (openai-python c6aa7e…bin)", async () => {
    const body = recording(
      "openai-chat/c6aa7e397b7123c3501f25df3a05d4daf7e8ad6d61ffa406ab5361fe36a8d5b1.bin",
    );
    const { provider } = await serve([sse(body, mode)]);
    const { response } = await runStream(provider, userRequest("weather"));
    expect(response.parts).toEqual([
      {
        type: "tool-call",
        id: "call_c91SqDXlYFuETYv8mUHzz6pp",
        name: "GetWeatherArgs",
        args: '{"city":"Edinburgh","country":"UK","units":"c"}',
      },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 76,
      outputTokens: 24,
      totalTokens: 100,
      reasoningTokens: 0,
    });
  });

  it("plain text token by token (openai-python e2aad4…bin)", async () => {
    const body = recording(
      "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    );
    const { provider } = await serve([sse(body, mode)]);
    const { response, deltas } = await runStream(provider, userRequest("weather in SF?"));
    expect(textOf(response)).toBe(
      "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.",
    );
    expect(deltas.filter((d) => d.type === "text-delta").length).toBeGreaterThan(20);
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({
      inputTokens: 14,
      outputTokens: 30,
      totalTokens: 44,
      reasoningTokens: 0,
    });
  });

  it("a refusal streamed in delta.refusal becomes the text, finish reason content-filter (openai-python 173417…bin)", async () => {
    const body = recording(
      "openai-chat/173417d553406f034f643e5db3f8d591fb691ebac56f5ae39a22cc7d455c5353.bin",
    );
    const { provider } = await serve([sse(body, mode)]);
    const { response } = await runStream(provider, userRequest("something bad"));
    expect(response.parts).toEqual([
      { type: "text", text: "I'm sorry, I can't assist with that request." },
    ]);
    // The wire says "stop"; a refusal is reported as "content-filter" (DESIGN §11 "Refusals").
    expect(response.finishReason).toBe("content-filter");
    expect(response.usage.totalTokens).toBe(90);
  });

  it("truncation by max tokens gives finish reason length (openai-python 4cc50a…bin)", async () => {
    const body = recording(
      "openai-chat/4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
    );
    const { provider } = await serve([sse(body, mode)]);
    const { response } = await runStream(provider, userRequest("json please"));
    expect(response.parts).toEqual([{ type: "text", text: '{"' }]);
    expect(response.finishReason).toBe("length");
    expect(response.usage).toEqual({
      inputTokens: 79,
      outputTokens: 1,
      totalTokens: 80,
      reasoningTokens: 0,
    });
  });

  it("a long gpt-4.1-nano text with obfuscation padding (vercel openai-text.chunks.txt)", async () => {
    const lines = chunkLines("openai-chat/openai-text.chunks.txt");
    const { provider } = await serve([sse(chunksToSSE(lines, "openai-chat"), mode)]);
    const { response } = await runStream(provider, userRequest("invent a holiday"));
    const expected = lines.map((line) => line.choices[0]?.delta?.content ?? "").join("");
    expect(expected.length).toBeGreaterThan(1000);
    expect(textOf(response)).toBe(expected);
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({
      inputTokens: 16,
      outputTokens: 300,
      totalTokens: 316,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("an Azure stream whose first chunk has choices: [] (vercel azure-model-router.1.chunks.txt)", async () => {
    const lines = chunkLines("openai-chat/azure-model-router.1.chunks.txt");
    const { provider } = await serve([sse(chunksToSSE(lines, "openai-chat"), mode)]);
    const { response } = await runStream(provider, userRequest("capital of Denmark?"));
    expect(response.parts).toEqual([{ type: "text", text: "Capital of Denmark." }]);
    expect(response.usage).toEqual({
      inputTokens: 15,
      outputTokens: 78,
      totalTokens: 93,
      cachedInputTokens: 0,
      reasoningTokens: 64,
    });
  });

  it("xAI: reasoning_content, then a whole tool call in one chunk (vercel xai-tool-call.chunks.txt)", async () => {
    const lines = chunkLines("openai-chat/xai-tool-call.chunks.txt");
    const { provider } = await serve([sse(chunksToSSE(lines, "openai-chat"), mode)]);
    const { response } = await runStream(provider, userRequest("weather in SF"));
    expect(response.parts).toEqual([
      { type: "reasoning", text: "First, the user is" },
      {
        type: "tool-call",
        id: "call_55117580",
        name: "weather",
        args: '{"location":"San Francisco"}',
      },
    ]);
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 291,
      outputTokens: 26,
      totalTokens: 513,
      cachedInputTokens: 290,
      reasoningTokens: 196,
    });
  });
});

describe("openAIChat stream: errors and truncation", () => {
  it("a stream cut before [DONE] and before any finish_reason is a ProviderError", async () => {
    const body = recording(
      "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    );
    const cut = body.indexOf('"finish_reason":"stop"');
    const { provider } = await serve([sse(body.slice(0, body.lastIndexOf("data:", cut)), {})]);
    const { error, deltas } = await runStream(provider, userRequest("weather"));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/stream ended before \[DONE\]/);
    expect((error as ProviderError).retryable).toBe(true);
    expect(deltas.some((d) => d.type === "finish")).toBe(false);
  });

  it("a connection cut mid-stream is a ProviderError", async () => {
    const body = recording(
      "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    );
    const { provider } = await serve([sse(body, { cutAfterBytes: 700 })]);
    const { error } = await runStream(provider, userRequest("weather"));
    expect(error).toBeInstanceOf(ProviderError);
  });
});

describe("openAIChat stream: quirks of some compatible servers (hand-written frames)", () => {
  it("tool calls without `index`, each whole, and finish_reason stop with calls, end as tool-calls", async () => {
    const frame = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const body = [
      frame({ tool_calls: [{ id: "a", function: { name: "one", arguments: '{"x":' } }] }),
      frame({ tool_calls: [{ function: { arguments: "1}" } }] }),
      frame({ tool_calls: [{ id: "b", function: { name: "two", arguments: "{}" } }] }),
      frame({}, "stop"),
      "data: [DONE]\n\n",
    ].join("");
    const { provider } = await serve([sse(body, { split: 5 })]);
    const { response } = await runStream(provider, userRequest("go"));
    expect(callsOf(response)).toEqual([
      { type: "tool-call", id: "a", name: "one", args: '{"x":1}' },
      { type: "tool-call", id: "b", name: "two", args: "{}" },
    ]);
    expect(response.finishReason).toBe("tool-calls");
    // No usage chunk: the usage is unknown, not 0.
    expect(response.usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      unknown: true,
    });
  });
});

describe("openAIChat generate (non-streaming bodies)", () => {
  const cases = [
    {
      file: "openai-chat/test_completions.test_parse_multiple_pydantic_tools.json",
      parts: [
        {
          type: "tool-call",
          id: "call_fdNz3vOBKYgOIpMdWotB9MjY",
          name: "GetWeatherArgs",
          args: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
        },
        {
          type: "tool-call",
          id: "call_h1DWI1POMJLb0KwIyQHWXD4p",
          name: "get_stock_price",
          args: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
        },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 149, outputTokens: 60, totalTokens: 209, reasoningTokens: 0 },
    },
    {
      file: "openai-chat/test_completions.test_parse_pydantic_tool.json",
      parts: [
        {
          type: "tool-call",
          id: "call_Y6qJ7ofLgOrBnMD5WbVAeiRV",
          name: "GetWeatherArgs",
          args: '{"city":"Edinburgh","country":"UK","units":"c"}',
        },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 76, outputTokens: 24, totalTokens: 100, reasoningTokens: 0 },
    },
    {
      file: "openai-chat/test_completions.test_parse_max_tokens_reached.json",
      parts: [{ type: "text", text: '{"' }],
      finishReason: "length",
      usage: { inputTokens: 79, outputTokens: 1, totalTokens: 80, reasoningTokens: 0 },
    },
    {
      file: "openai-chat/test_completions.test_parse_pydantic_model_refusal.json",
      parts: [{ type: "text", text: "I'm very sorry, but I can't assist with that." }],
      finishReason: "content-filter", // message.refusal: the wire's "stop" is a refusal
      usage: { inputTokens: 79, outputTokens: 12, totalTokens: 91, reasoningTokens: 0 },
    },
  ];

  it.each(cases)("$file", async ({ file, parts, finishReason, usage }) => {
    const { provider, server } = await serve([jsonAnswer(recording(file), 200)]);
    const response = await provider.generate(userRequest("go"), {});
    expect(response.parts).toEqual(parts);
    expect(response.finishReason).toBe(finishReason);
    expect(response.usage).toEqual(usage);
    expect(response.raw).toEqual(recordingJson(file));
    expect(server.requests[0]?.json().stream).toBeUndefined();
  });

  it("a gpt-4.1-nano text answer (vercel openai-text.json)", async () => {
    const file = "openai-chat/openai-text.json";
    const { provider } = await serve([jsonAnswer(recording(file), 200)]);
    const response = await provider.generate(userRequest("invent a holiday"), {});
    expect(response.parts).toEqual([
      { type: "text", text: recordingJson(file).choices[0].message.content },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 16,
      outputTokens: 363,
      totalTokens: 379,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("an HTTP 400 carries OpenAI's own message (vercel reasoning-model-legacy-parameter-error.json)", async () => {
    const file = "openai-chat/reasoning-model-legacy-parameter-error.json";
    const { provider, server } = await serve([jsonAnswer(recording(file), 400)]);
    const error = (await provider.generate(userRequest("hi"), {}).catch((e) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `openai returned HTTP 400 invalid_request_error: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead. (POST ${server.url}/v1/chat/completions)`,
    );
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.provider).toBe("openai");
    expect(error.body).toBe(recording(file));
    expect(server.requests).toHaveLength(1);
  });
});

/** The tool specs a cassette's first request offered. */
const cassetteTools = (body: any): ToolSpec[] =>
  body.tools.map((tool: any) => ({
    name: tool.function.name,
    description: tool.function.description,
    inputSchema: tool.function.parameters,
  }));

/** The results a recorded request sends back for the given calls, as one tool message. */
function recordedResults(messages: any[], calls: { id: string; name: string }[]): Message {
  return {
    role: "tool",
    results: calls.map((call) => ({
      toolCallId: call.id,
      toolName: call.name,
      output: messages.find((m) => m.role === "tool" && m.tool_call_id === call.id).content,
      isError: false,
    })),
  };
}

/** A Chat Completions message as we compare it: an assistant's `content: null` means no content. */
const comparable = (message: any) => {
  const { content, ...rest } = message;
  return content === null ? rest : message;
};

describe.each(STREAM_MODES)("openAIChat multi-turn loops, replayed with split %o", (mode) => {
  it("pydantic-ai agent run: parallel calls, results sent back in the documented shape (test_complex_agent_run.yaml)", async () => {
    const interactions = cassette("openai-chat/test_complex_agent_run.yaml");
    const { provider, server } = await serve(interactions.map((i) => cassetteAnswer(i, mode)));
    const first = interactions[0]?.request.parsed_body;
    const tools = cassetteTools(first);
    const messages: Message[] = [{ role: "user", content: first.messages[0].content }];
    const expectedCalls: { id: string; name: string; args?: string }[][] = [
      [
        { id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", name: "get_country", args: "{}" },
        { id: "call_b51ijcpFkDiTQG1bQzsrmtW5", name: "get_product_name", args: "{}" },
      ],
      [
        {
          id: "call_LwxJUB9KppVyogRRLQsamRJv",
          name: "get_weather",
          args: '{"city":"Mexico City"}',
        },
      ],
      [{ id: "call_CCGIWaMeYWmxOQ91orkmTvzn", name: "final_result" }],
    ];
    const expectedUsage = [
      [364, 40, 404],
      [423, 15, 438],
      [448, 62, 510],
    ];
    for (const [turn, interaction] of interactions.entries()) {
      const request: ModelRequest = { messages: [...messages], tools, toolChoice: "required" };
      const { response, error } = await runStream(provider, request);
      expect(error).toBeUndefined();
      const sent = server.requests[turn]?.json();
      const recorded = interaction.request.parsed_body;
      // The request we built equals, message for message, what the real client sent.
      expect(sent.messages.map(comparable)).toEqual(recorded.messages);
      expect(sent.tool_choice).toBe("required");
      expect(sent.tools.map((t: any) => t.function.name)).toEqual(
        recorded.tools.map((t: any) => t.function.name),
      );
      const calls = callsOf(response);
      expect(calls.map(({ id, name }) => ({ id, name }))).toEqual(
        expectedCalls[turn]?.map(({ id, name }) => ({ id, name })),
      );
      for (const [k, call] of calls.entries()) {
        const args = expectedCalls[turn]?.[k]?.args;
        if (args !== undefined) expect(call.args).toBe(args);
        else expect(JSON.parse(call.args).answers).toHaveLength(3);
      }
      const [input, output, total] = expectedUsage[turn] as number[];
      expect(response.usage).toMatchObject({
        inputTokens: input,
        outputTokens: output,
        totalTokens: total,
      });
      expect(response.finishReason).toBe("tool-calls");
      const next = interactions[turn + 1]?.request.parsed_body.messages;
      if (!next) break;
      messages.push({ role: "assistant", parts: response.parts });
      messages.push(recordedResults(next, calls));
    }
  });

  it("Groq: reasoning deltas, then a mid-stream `event: error` frame; later turns succeed (test_tool_use_failed_error_streaming.yaml)", async () => {
    const interactions = cassette("openai-chat/test_tool_use_failed_error_streaming.yaml");
    const { server } = await serve(interactions.map((i) => cassetteAnswer(i, mode)));
    const groq = openAIChat({
      model: "openai/gpt-oss-120b",
      baseURL: `${server.url}/openai/v1`,
      name: "groq",
    });
    const body = interactions[0]?.request.parsed_body;
    const request: ModelRequest = {
      system: body.messages[0].content,
      messages: [{ role: "user", content: body.messages[1].content }],
      tools: cassetteTools(body),
    };

    // Turn 1: the reasoning streams live, then the error frame ends the stream.
    const first = await runStream(groq, request);
    const error = first.error as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^groq reported an error \(invalid_request_error\): Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema/,
    );
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.provider).toBe("groq");
    const streamedReasoning = interactions[0]?.response.body?.string
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice(6)).choices[0]?.delta?.reasoning ?? "")
      .join("");
    expect(reasoningOf(first.response)).toBe(streamedReasoning);
    expect(server.requests[0]?.url).toBe("/openai/v1/chat/completions");
    expect(server.requests[0]?.json().messages).toEqual(body.messages);

    // Turn 2: a whole tool call in one chunk, usage on the finish chunk.
    const second = await runStream(groq, request);
    expect(callsOf(second.response)).toEqual([
      {
        type: "tool-call",
        id: "fc_bfb39741-3748-4def-9886-a93fc9c64a90",
        name: "get_something_by_name",
        args: '{"name":"example"}',
      },
    ]);
    expect(second.response.usage).toEqual({
      inputTokens: 304,
      outputTokens: 49,
      totalTokens: 353,
      reasoningTokens: 23,
    });

    // Turn 3: the final text.
    const third = await runStream(groq, request);
    const answer = interactions[2]?.response.body?.string
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice(6)).choices[0]?.delta?.content ?? "")
      .join("");
    expect(textOf(third.response)).toBe(answer);
    expect(third.response.finishReason).toBe("stop");
    expect(third.response.usage).toEqual({
      inputTokens: 339,
      outputTokens: 58,
      totalTokens: 397,
      reasoningTokens: 38,
    });
  });
});

describe("openAIChat request shape", () => {
  it("maps system, transcript, tools, toolChoice and settings to Chat Completions", async () => {
    const { server } = await serve([
      jsonAnswer(recording("openai-chat/test_completions.test_parse_pydantic_tool.json"), 200),
    ]);
    // The default base URL (api.openai.com), routed to the replay server by an injected fetch.
    vi.stubEnv("OPENAI_BASE_URL", "");
    const provider = openAIChat({
      model: "gpt-4o",
      apiKey: "sk-test-key-000",
      fetch: (input, init) =>
        fetch(String(input).replace("https://api.openai.com", server.url), init),
    });
    await provider.generate(
      {
        system: "be brief",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            parts: [
              { type: "reasoning", text: "thinking…", signature: "sig" },
              { type: "text", text: "Let me check." },
              { type: "tool-call", id: "c1", name: "a", args: '{"x":1}' },
              { type: "tool-call", id: "c2", name: "b", args: "{}" },
            ],
          },
          {
            role: "tool",
            results: [
              { toolCallId: "c1", toolName: "a", output: { y: 2 }, isError: false },
              { toolCallId: "c2", toolName: "b", output: "boom", isError: true },
            ],
          },
          { role: "user", content: "and now?" },
        ],
        tools: [
          {
            name: "a",
            description: "A",
            inputSchema: { type: "object", properties: { x: { type: "number" } } },
          },
        ],
        toolChoice: { name: "a" },
        settings: {
          temperature: 0.2,
          topP: 0.9,
          maxOutputTokens: 100,
          stopSequences: ["END"],
          seed: 7,
          reasoning_effort: "low",
        },
      },
      {},
    );
    expect(server.requests[0]?.url).toBe("/v1/chat/completions");
    expect(server.requests[0]?.json()).toEqual({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "a", arguments: '{"x":1}' } },
            { id: "c2", type: "function", function: { name: "b", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: '{"y":2}' },
        { role: "tool", tool_call_id: "c2", content: "boom" },
        { role: "user", content: "and now?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "a",
            description: "A",
            parameters: { type: "object", properties: { x: { type: "number" } } },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "a" } },
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 100,
      stop: ["END"],
      seed: 7,
      reasoning_effort: "low",
    });
  });

  it("sends max_tokens to servers other than api.openai.com, and no tools field without tools", async () => {
    const { provider, server } = await serve([
      jsonAnswer(recording("openai-chat/test_completions.test_parse_max_tokens_reached.json"), 200),
    ]);
    await provider.generate(
      { ...userRequest("hi"), toolChoice: "none", settings: { maxOutputTokens: 5 } },
      {},
    );
    const sent = server.requests[0]?.json();
    expect(sent.max_tokens).toBe(5);
    expect(sent.max_completion_tokens).toBeUndefined();
    expect(sent.tools).toBeUndefined();
    expect(sent.tool_choice).toBeUndefined();
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test-key-000");
  });
});
