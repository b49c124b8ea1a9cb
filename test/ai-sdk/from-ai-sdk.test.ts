/**
 * `fromAISDK` over the AI SDK's own `MockLanguageModelV4` (and V3) from `ai/test`: the prompt,
 * tools, settings and results it hands a real AI SDK model, what it reads back (generate and
 * stream), and what it refuses. The replay of real provider traffic through `@ai-sdk/openai`
 * and `@ai-sdk/anthropic` is in test/ai-sdk/replay.test.ts.
 */
import { inspect } from "node:util";
import { AgentLoop, type LoopEvent, ProviderError, tool } from "tollgate";
import { type AISDKCallOptions, type AISDKLanguageModel, fromAISDK } from "tollgate/ai-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { aiSdkSkipReason, loadPeer } from "../support/ai-sdk-peers.js";

const skipReason = aiSdkSkipReason("test/ai-sdk/from-ai-sdk.test.ts");

/** What these tests use of `ai/test`. */
interface MockModel extends AISDKLanguageModel {
  doGenerateCalls: AISDKCallOptions[];
  doStreamCalls: AISDKCallOptions[];
}
interface AiTest {
  MockLanguageModelV4: new (options: { doGenerate?: unknown; doStream?: unknown }) => MockModel;
  MockLanguageModelV3: new (options: { doGenerate?: unknown; doStream?: unknown }) => MockModel;
  convertArrayToReadableStream<T>(parts: T[]): ReadableStream<T>;
}
/** What these tests use of `ai`. */
interface Ai {
  APICallError: new (options: {
    message: string;
    url: string;
    requestBodyValues: unknown;
    statusCode?: number;
    responseBody?: string;
    isRetryable?: boolean;
  }) => Error;
}

const aiTest = skipReason === "" ? await loadPeer<AiTest>("ai/test") : undefined;
const ai = skipReason === "" ? await loadPeer<Ai>("ai") : undefined;

const usage = (
  input: number,
  output: number,
  extra: { reasoning?: number; cacheRead?: number } = {},
) => ({
  inputTokens: { total: input, noCache: input, cacheRead: extra.cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: extra.reasoning },
});
const finish = (unified: string) => ({ unified, raw: unified });

const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: 21 }),
});
const deleteFile = tool({
  name: "delete_file",
  description: "Deletes a file",
  input: z.object({ path: z.string() }),
  execute: () => "deleted",
});

describe.skipIf(skipReason !== "")(`fromAISDK over MockLanguageModelV4${skipReason}`, () => {
  const mock = (options: { doGenerate?: unknown; doStream?: unknown }) =>
    new (aiTest as AiTest).MockLanguageModelV4(options);
  const stream = (parts: unknown[]) => ({
    stream: (aiTest as AiTest).convertArrayToReadableStream(parts),
  });

  it("generate: a tool call, a denied call and the answer; the next prompt carries input objects and results", async () => {
    const model = mock({
      doGenerate: [
        {
          content: [
            {
              type: "reasoning",
              text: "Two calls.",
              providerMetadata: { acme: { signature: "sig-1" } },
            },
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "get_weather",
              input: '{"city":"Oslo"}',
            },
            {
              type: "tool-call",
              toolCallId: "c2",
              toolName: "delete_file",
              input: '{"path":"/etc"}',
            },
          ],
          finishReason: finish("tool-calls"),
          usage: usage(10, 5, { reasoning: 2 }),
          warnings: [],
        },
        {
          content: [
            { type: "source", sourceType: "url", id: "s1", url: "https://example.com" },
            { type: "text", text: "It is 21 °C in Oslo." },
          ],
          finishReason: finish("stop"),
          usage: usage(30, 8, { cacheRead: 4 }),
          warnings: [],
        },
      ],
    });
    const provider = fromAISDK(model);
    // Without stream(), the loop calls generate() (doGenerate).
    const loop = new AgentLoop({
      provider: { name: provider.name, model: provider.model, generate: provider.generate },
      instructions: "Be brief.",
      tools: [weather, deleteFile],
      policy: {
        decideToolCall: ({ call }) =>
          call.name === "delete_file" ? { decision: "DENY", reason: "no deletes" } : "ALLOW",
      },
    });
    const result = await loop.run("Weather in Oslo?");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("It is 21 °C in Oslo.");
    expect(result.usage).toEqual({
      inputTokens: 40,
      outputTokens: 13,
      totalTokens: 53,
      reasoningTokens: 2,
      cachedInputTokens: 4,
    });
    expect(result.messages[1]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", text: "Two calls.", signature: '{"acme":{"signature":"sig-1"}}' },
        { type: "tool-call", id: "c1", name: "get_weather", args: '{"city":"Oslo"}' },
        { type: "tool-call", id: "c2", name: "delete_file", args: '{"path":"/etc"}' },
      ],
    });
    const [first, second] = model.doGenerateCalls;
    expect(first?.prompt).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] },
    ]);
    expect(first?.tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "The weather in a city",
        inputSchema: weather.inputSchema,
      },
      {
        type: "function",
        name: "delete_file",
        description: "Deletes a file",
        inputSchema: deleteFile.inputSchema,
      },
    ]);
    expect(first?.abortSignal).toBeInstanceOf(AbortSignal);
    expect(second?.prompt.slice(2)).toEqual([
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Two calls.",
            providerOptions: { acme: { signature: "sig-1" } },
          },
          { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Oslo" } },
          { type: "tool-call", toolCallId: "c2", toolName: "delete_file", input: { path: "/etc" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "get_weather",
            output: { type: "json", value: { city: "Oslo", tempC: 21 } },
          },
          {
            type: "tool-result",
            toolCallId: "c2",
            toolName: "delete_file",
            output: {
              type: "error-text",
              value: expect.stringMatching(/^the call to delete_file was denied.*no deletes/),
            },
          },
        ],
      },
    ]);
  });

  it("stream: text, reasoning with its metadata, a tool call's input as deltas, then finish", async () => {
    const model = mock({
      doStream: [
        stream([
          { type: "stream-start", warnings: [] },
          { type: "response-metadata", id: "r1", modelId: "mock" },
          { type: "reasoning-start", id: "r" },
          { type: "reasoning-delta", id: "r", delta: "Look it up." },
          { type: "reasoning-end", id: "r", providerMetadata: { acme: { signature: "s" } } },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Check" },
          { type: "text-delta", id: "t", delta: "ing." },
          { type: "text-end", id: "t" },
          { type: "tool-input-start", id: "c1", toolName: "get_weather" },
          { type: "tool-input-delta", id: "c1", delta: '{"city":' },
          { type: "tool-input-delta", id: "c1", delta: '"Oslo"}' },
          { type: "tool-input-end", id: "c1" },
          {
            type: "tool-call",
            toolCallId: "c1",
            toolName: "get_weather",
            input: '{"city":"Oslo"}',
          },
          { type: "finish", finishReason: finish("tool-calls"), usage: usage(10, 5) },
        ]),
        stream([
          { type: "text-delta", id: "t", delta: "21 °C." },
          { type: "finish", finishReason: finish("stop"), usage: usage(20, 3) },
        ]),
      ],
    });
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: fromAISDK(model),
      tools: [weather],
      onEvent: (e) => events.push(e),
    });
    const result = await loop.run("Weather in Oslo?");
    expect(result.text).toBe("21 °C.");
    expect(result.messages[1]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", text: "Look it up.", signature: '{"acme":{"signature":"s"}}' },
        { type: "text", text: "Checking." },
        { type: "tool-call", id: "c1", name: "get_weather", args: '{"city":"Oslo"}' },
      ],
    });
    expect(events.filter((e) => e.type === "tool-call-delta").length).toBe(3);
    expect(model.doStreamCalls[1]?.prompt[1]).toMatchObject({
      role: "assistant",
      content: [
        { type: "reasoning", providerOptions: { acme: { signature: "s" } } },
        { type: "text", text: "Checking." },
        { type: "tool-call", input: { city: "Oslo" } },
      ],
    });
  });

  it('a streamed tool call whose deltas say "" gets the whole input ("{}") once', async () => {
    const model = mock({
      doStream: stream([
        { type: "tool-input-start", id: "c1", toolName: "list" },
        { type: "tool-input-delta", id: "c1", delta: "" },
        { type: "tool-call", toolCallId: "c1", toolName: "list", input: "{}" },
        { type: "tool-call", toolCallId: "c2", toolName: "list", input: '{"all":true}' },
        { type: "finish", finishReason: finish("tool-calls"), usage: usage(1, 1) },
      ]),
    });
    const parts = [];
    for await (const part of fromAISDK(model).stream?.({ messages: [], tools: [] }, {}) ?? [])
      parts.push(part);
    expect(parts).toEqual([
      { type: "tool-call-delta", index: 0, id: "c1", name: "list", argsDelta: "" },
      { type: "tool-call-delta", index: 0, argsDelta: "{}" },
      { type: "tool-call", id: "c2", name: "list", args: '{"all":true}' },
      {
        type: "finish",
        finishReason: "tool-calls",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
    ]);
  });

  it("maps settings, toolChoice, structured output's responseFormat, media and tool content", async () => {
    const model = mock({
      doGenerate: {
        content: [{ type: "text", text: "{}" }],
        finishReason: finish("stop"),
        usage: usage(1, 1),
        warnings: [],
      },
    });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
    await fromAISDK(model, { name: "mine" }).generate(
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Look" },
              { type: "image", image: png },
              { type: "image", image: "https://example.com/cat.jpg" },
              {
                type: "file",
                data: "data:application/pdf;base64,JVBERg==",
                mediaType: "application/pdf",
                filename: "a.pdf",
              },
            ],
          },
          { role: "assistant", parts: [{ type: "tool-call", id: "k", name: "snap", args: "" }] },
          {
            role: "tool",
            results: [
              {
                toolCallId: "k",
                toolName: "snap",
                output: "a cat",
                isError: false,
                content: [
                  { type: "text", text: "a cat" },
                  { type: "image", image: png },
                ],
              },
            ],
          },
        ],
        tools: [{ name: "snap", description: "", inputSchema: { type: "object" } }],
        toolChoice: { name: "snap" },
        settings: {
          temperature: 0.2,
          topP: 0.9,
          maxOutputTokens: 100,
          stopSequences: ["END"],
          seed: 7,
          topK: 3,
          reasoning: "low",
          providerOptions: { openai: { store: false } },
        },
        responseFormat: {
          type: "json",
          name: "answer",
          schema: { type: "object" },
          description: "The answer",
        },
      },
      {},
    );
    const call = model.doGenerateCalls[0];
    expect(call).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ["END"],
      seed: 7,
      topK: 3,
      reasoning: "low",
      providerOptions: { openai: { store: false } },
      toolChoice: { type: "tool", toolName: "snap" },
      responseFormat: {
        type: "json",
        name: "answer",
        schema: { type: "object" },
        description: "The answer",
      },
    });
    expect(call?.prompt[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look" },
        { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgoA" } },
        {
          type: "file",
          mediaType: "image",
          data: { type: "url", url: new URL("https://example.com/cat.jpg") },
        },
        {
          type: "file",
          mediaType: "application/pdf",
          filename: "a.pdf",
          data: { type: "data", data: "JVBERg==" },
        },
      ],
    });
    expect(call?.prompt[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "k", toolName: "snap", input: {} }],
    });
    expect(call?.prompt[2]?.content).toEqual([
      {
        type: "tool-result",
        toolCallId: "k",
        toolName: "snap",
        output: {
          type: "content",
          value: [
            { type: "text", text: "a cat" },
            { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgoA" } },
          ],
        },
      },
    ]);
  });

  it("a thrown APICallError is a ProviderError with its status, body and retryable, and no request in the message", async () => {
    const Err = (ai as Ai).APICallError;
    const thrown = new Err({
      message: "Rate limited",
      url: "https://api.example.com/v1?key=sk-secret-123456",
      requestBodyValues: { apiKey: "sk-secret-123456" },
      statusCode: 429,
      responseBody: '{"error":"slow down"}',
      isRetryable: true,
    });
    const model = mock({
      doGenerate: async () => {
        throw thrown;
      },
      doStream: async () => stream([{ type: "error", error: thrown }]),
    });
    for (const call of [
      () => fromAISDK(model, { maxRetries: 0 }).generate({ messages: [], tools: [] }, {}),
      async () => {
        for await (const _ of fromAISDK(model, { maxRetries: 0 }).stream?.(
          { messages: [], tools: [] },
          {},
        ) ?? []);
      },
    ]) {
      const error = (await call().catch((e) => e)) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        status: 429,
        body: '{"error":"slow down"}',
        retryable: true,
        provider: "mock-provider",
      });
      expect(error.message).toBe(
        'AI SDK model "mock-provider" failed (HTTP 429): AI_APICallError: Rate limited',
      );
      // Nothing of the request: the APICallError (its URL, its body with the prompt) is not kept.
      expect(error.cause).toBeUndefined();
      expect(inspect(error, { depth: 10 })).not.toMatch(/sk-secret|requestBodyValues|example\.com/);
    }
  });

  it("an abort reaches the model's signal and rejects with the abort reason", async () => {
    const model = mock({
      doGenerate: (options: AISDKCallOptions) =>
        new Promise((_, reject) =>
          options.abortSignal?.addEventListener("abort", () =>
            reject(new Error("aborted by fetch")),
          ),
        ),
    });
    const controller = new AbortController();
    const pending = fromAISDK(model).generate(
      { messages: [], tools: [] },
      { signal: controller.signal },
    );
    const reason = new Error("user cancelled");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("fails closed on what a model answers that tollgate cannot read", async () => {
    const cases: [unknown, RegExp][] = [
      [
        { content: "hi", finishReason: finish("stop"), usage: usage(1, 1) },
        /not \{ content: \[\.\.\.\]/,
      ],
      [
        {
          content: [{ type: "file", mediaType: "image/png", data: { type: "data", data: "" } }],
          finishReason: finish("stop"),
          usage: usage(1, 1),
        },
        /content tollgate cannot carry/,
      ],
      [
        {
          content: [
            {
              type: "tool-call",
              toolCallId: "x",
              toolName: "web",
              input: "{}",
              providerExecuted: true,
            },
          ],
          finishReason: finish("stop"),
          usage: usage(1, 1),
        },
        /ran itself/,
      ],
      [
        {
          content: [{ type: "tool-call", toolCallId: "x", toolName: "t", input: {} }],
          finishReason: finish("stop"),
          usage: usage(1, 1),
        },
        /input \(JSON text\)/,
      ],
      [{ content: [], finishReason: finish("bored"), usage: usage(1, 1) }, /unknown finish reason/],
      [
        { content: [], finishReason: finish("stop"), usage: { inputTokens: 3 } },
        /a usage that is not/,
      ],
    ];
    for (const [answer, message] of cases) {
      const error = await fromAISDK(mock({ doGenerate: async () => answer }))
        .generate({ messages: [], tools: [] }, {})
        .catch((e) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toMatch(message);
    }
    const streams: [unknown[], RegExp][] = [
      [[{ type: "text-delta", id: "t", delta: "hi" }], /without a finish part/],
      [
        [{ type: "tool-result", toolCallId: "x", toolName: "t", result: {} }],
        /stream part tollgate cannot carry/,
      ],
      [[{ type: "tool-input-delta", id: "nope", delta: "{" }], /started call/],
      [[{ type: "text-delta", id: "t" }], /text-delta without delta/],
      [[42], /not \{ type, \.\.\. \}/],
    ];
    for (const [parts, message] of streams) {
      const error = await (async () => {
        for await (const _ of fromAISDK(mock({ doStream: stream(parts) })).stream?.(
          { messages: [], tools: [] },
          {},
        ) ?? []);
      })().catch((e) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toMatch(message);
    }
  });

  it('a finish reason of "interrupted" or "error" is a ProviderError, in generate and stream; every other maps', async () => {
    const cases = [
      ["interrupted", true, /the stream ended before the model finished/],
      ["error", false, /stopped because of an error \(raw finish reason "boom"\)/],
    ] as const;
    for (const [unified, retryable, message] of cases) {
      const reason = { unified, raw: unified === "error" ? "boom" : undefined };
      const model = mock({
        doGenerate: async () => ({
          content: [{ type: "text", text: "Half an ans" }],
          finishReason: reason,
          usage: usage(1, 1),
          warnings: [],
        }),
        doStream: async () =>
          stream([
            { type: "text-delta", id: "t", delta: "Half an ans" },
            { type: "finish", finishReason: reason, usage: usage(1, 1) },
          ]),
      });
      const generated = await fromAISDK(model)
        .generate({ messages: [], tools: [] }, {})
        .catch((e) => e);
      const streamed = await new AgentLoop({ provider: fromAISDK(model, { maxRetries: 0 }) })
        .run("hi")
        .catch((e) => e);
      for (const error of [generated, streamed]) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ retryable });
        expect(error.message).toMatch(message);
      }
    }
    for (const unified of ["stop", "length", "content-filter", "tool-calls", "other"]) {
      const response = await fromAISDK(
        mock({
          doGenerate: async () => ({
            content: [],
            finishReason: finish(unified),
            usage: usage(1, 1),
            warnings: [],
          }),
        }),
      ).generate({ messages: [], tools: [] }, {});
      expect(response.finishReason).toBe(unified);
    }
  });

  it("refuses a setting it cannot carry before calling the model", async () => {
    const model = mock({ doGenerate: async () => ({}) });
    const error = await fromAISDK(model)
      .generate({ messages: [], tools: [], settings: { reasoning_effort: "low" } }, {})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/cannot carry the setting "reasoning_effort".*providerOptions/);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("is a TypeError for anything that is not a V4 or V3 language model", () => {
    for (const [value, message] of [
      ["gpt-4o", /it is not an object/],
      [
        { specificationVersion: "v2", provider: "p", modelId: "m", doGenerate() {}, doStream() {} },
        /specificationVersion is "v2"/,
      ],
      [
        { specificationVersion: "v4", provider: "p", modelId: "m" },
        /no doGenerate\(\) and doStream\(\)/,
      ],
      [
        { specificationVersion: "v4", doGenerate() {}, doStream() {} },
        /no string `provider` and `modelId`/,
      ],
    ] as const) {
      expect(() => fromAISDK(value as never)).toThrow(TypeError);
      expect(() => fromAISDK(value as never)).toThrow(message);
    }
    expect(() => fromAISDK(mock({}), { name: "" })).toThrow(TypeError);
    expect(fromAISDK(mock({}))).toMatchObject({
      name: "mock-provider",
      model: "mock-model-id",
      supportsNativeOutput: true,
    });
  });

  it("takes a V3 model too (MockLanguageModelV3), which takes no `reasoning` setting", async () => {
    const model = new (aiTest as AiTest).MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: "v3" }],
        finishReason: finish("stop"),
        usage: usage(1, 2),
        warnings: [],
      },
    });
    const response = await fromAISDK(model).generate(
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      {},
    );
    expect(response.parts).toEqual([{ type: "text", text: "v3" }]);
    const error = await fromAISDK(model)
      .generate({ messages: [], tools: [], settings: { reasoning: "high" } }, {})
      .catch((e) => e);
    expect(error.message).toMatch(/V3 model, which takes no `reasoning`/);
  });
});
