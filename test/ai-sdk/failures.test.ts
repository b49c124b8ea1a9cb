/**
 * `fromAISDK` over the real `@ai-sdk/openai` and `@ai-sdk/anthropic` when things go wrong, each
 * answer given by a real HTTP server on 127.0.0.1: a stream cut before the model finished, a
 * 200 event stream of garbage, an error that echoes the API key (nothing of the request or the
 * key may leak from the `ProviderError`), retries of 429s with `Retry-After` (and an abort
 * during the wait), settings and options refused with a did-you-mean, and `strictJsonSchema`
 * reaching the request.
 */
import { inspect } from "node:util";
import { AgentLoop, type ModelRequest, ProviderError } from "tollgate";
import { fromAISDK } from "tollgate/ai-sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  chunkLines,
  chunksToSSE,
  jsonAnswer,
  recording,
  runStream,
  sse,
  userRequest,
} from "../providers/support/recordings.js";
import {
  type AnthropicPackage,
  aiSdkSkipReason,
  loadProviderPackages,
  type OpenAIPackage,
} from "../support/ai-sdk-peers.js";
import {
  type ReplayScript,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";

const skipReason = aiSdkSkipReason("test/ai-sdk/failures.test.ts");

const { openaiPackage, anthropicPackage } = await loadProviderPackages(skipReason);

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: ReplayScript) {
  const server = await startReplayServer(script);
  servers.push(server);
  return server;
}

/** An `@ai-sdk/openai` chat model (or `@ai-sdk/anthropic`'s) against the server. */
const openaiModel = (server: ReplayServer) =>
  (openaiPackage as OpenAIPackage)
    .createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-test-key" })
    .chat("gpt-4.1-nano");
const anthropicModel = (server: ReplayServer) =>
  (anthropicPackage as AnthropicPackage).createAnthropic({
    baseURL: `${server.url}/v1`,
    apiKey: "sk-ant-test-key",
  })("claude-haiku-4-5");

const OPENAI_TEXT = "openai-chat/openai-text.chunks.txt";
const ANTHROPIC_TEXT = "anthropic/anthropic-text.chunks.txt";

/** The recorded OpenAI stream cut mid-answer: content chunks only, no finish_reason, no [DONE]. */
const CUT_OPENAI: string = chunksToSSE(chunkLines(OPENAI_TEXT).slice(0, 40), "openai-chat").replace(
  "data: [DONE]\n\n",
  "",
);
/** The recorded Anthropic stream cut after its text, before message_delta and message_stop. */
const CUT_ANTHROPIC: string = chunksToSSE(chunkLines(ANTHROPIC_TEXT).slice(0, 8), "typed-events");

describe.skipIf(skipReason !== "")(`fromAISDK when things go wrong${skipReason}`, () => {
  it.each([
    ["openai, cut before finish_reason and [DONE]", "openai", CUT_OPENAI],
    ["anthropic, cut before message_stop", "anthropic", CUT_ANTHROPIC],
    ["openai, a 200 event stream of garbage", "openai", "<html>Sign in</html>\n\n"],
  ] as const)("a stream the model did not finish fails the run: %s", async (_, kind, body) => {
    expect(body).not.toMatch(/finish_reason":"|message_stop|\[DONE\]/);
    const server = await serve(() => sse(body, { split: "odd" }));
    const model = kind === "openai" ? openaiModel(server) : anthropicModel(server);
    const loop = new AgentLoop({ provider: fromAISDK(model, { maxRetries: 0 }) });
    const error = await loop.run("Invent a holiday").catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/the stream ended before the model finished/);
    expect(error.retryable).toBe(true);
  });

  it("the whole recorded streams still complete (the cut is what fails)", async () => {
    const server = await serve([
      sse(chunksToSSE(chunkLines(OPENAI_TEXT), "openai-chat"), { split: "odd" }),
    ]);
    const run = await runStream(fromAISDK(openaiModel(server)), userRequest("go"));
    expect(run.error).toBeUndefined();
    expect(run.response.finishReason).toBe("stop");
  });

  it("an error leaks neither the prompt, the request nor a key the server echoes", async () => {
    const body = JSON.stringify({
      error: {
        message: "Incorrect API key provided: sk-SECRET-abcdef123456. Find your key at …",
        type: "invalid_request_error",
        code: "invalid_api_key",
      },
    });
    const server = await serve(() => jsonAnswer(body, 401));
    const request: ModelRequest = userRequest("PROMPT-TEXT-93c1: my private question");
    for (const provider of [fromAISDK(openaiModel(server))]) {
      for (const error of [
        await provider.generate(request, {}).catch((e) => e),
        (await runStream(provider, request)).error,
      ]) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ status: 401, retryable: false });
        const shown = inspect(error, { depth: 10 });
        expect(shown).toMatch(/Incorrect API key provided: \[redacted\]/);
        for (const leak of ["sk-SECRET-abcdef123456", "PROMPT-TEXT-93c1", "requestBodyValues"]) {
          expect(shown).not.toContain(leak);
        }
        expect(shown).not.toContain(server.url);
        expect(error.cause).toBeUndefined();
      }
    }
  });

  it("retries a 429 after its Retry-After, in generate and in stream (maxRetries, default 2)", async () => {
    const busy = { ...jsonAnswer('{"error":{"message":"slow down"}}', 429) };
    busy.headers = { ...busy.headers, "retry-after": "0" };
    const server = await serve([
      busy,
      busy,
      jsonAnswer(recording("openai-chat/openai-text.json")),
      busy,
      sse(chunksToSSE(chunkLines(OPENAI_TEXT), "openai-chat"), { split: "whole" }),
    ]);
    const provider = fromAISDK(openaiModel(server));
    const response = await provider.generate(userRequest("go"), {});
    expect(response.finishReason).toBe("stop");
    expect(server.requests).toHaveLength(3);
    const run = await runStream(provider, userRequest("go"));
    expect(run.error).toBeUndefined();
    expect(server.requests).toHaveLength(5);

    // Past maxRetries the last error is thrown, still retryable.
    const again = await serve(() => busy);
    const error = await fromAISDK(openaiModel(again), { maxRetries: 1 })
      .generate(userRequest("go"), {})
      .catch((e) => e);
    expect(error).toMatchObject({ status: 429, retryable: true });
    expect(again.requests).toHaveLength(2);
  });

  it("does not retry a 400, nor wait for a Retry-After over a minute; an abort ends the wait", async () => {
    const bad = await serve(() => jsonAnswer('{"error":{"message":"bad"}}', 400));
    await expect(fromAISDK(openaiModel(bad)).generate(userRequest("go"), {})).rejects.toMatchObject(
      { status: 400, retryable: false },
    );
    expect(bad.requests).toHaveLength(1);

    const long = jsonAnswer('{"error":{"message":"later"}}', 429);
    long.headers = { ...long.headers, "retry-after": "120" };
    const slow = await serve(() => long);
    await expect(
      fromAISDK(openaiModel(slow)).generate(userRequest("go"), {}),
    ).rejects.toMatchObject({ status: 429, retryable: true });
    expect(slow.requests).toHaveLength(1);

    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const waiting = jsonAnswer('{"error":{"message":"wait"}}', 429);
    waiting.headers = { ...waiting.headers, "retry-after": "30" };
    const aborting = await serve(() => {
      setImmediate(() => controller.abort(reason));
      return waiting;
    });
    await expect(
      fromAISDK(openaiModel(aborting)).generate(userRequest("go"), { signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(aborting.requests).toHaveLength(1);
  });

  it("refuses settings the AI SDK would map to something else or drop, before any request", async () => {
    const server = await serve(() => jsonAnswer(recording("openai-chat/openai-text.json")));
    const provider = fromAISDK(openaiModel(server));
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { reasoning: "ultra" },
        /"reasoning": it must be one of "provider-default", .*got the string "ultra"/,
      ],
      [{ reasoning: { effort: "low" } }, /"reasoning": it must be one of/],
      [{ topK: 0 }, /"topK": it must be a whole number > 0, got 0/],
      [{ topK: 2.5 }, /"topK": it must be a whole number > 0/],
      [{ topK: "5" }, /"topK".*write 5, without quotes/],
      [{ presencePenalty: "0.5" }, /"presencePenalty": it must be a number/],
      [{ frequencyPenalty: Number.NaN }, /"frequencyPenalty": it must be a number/],
      [{ topk: 5 }, /"topk"; did you mean "topK"\?/],
      [{ providerOption: {} }, /"providerOption"; did you mean "providerOptions"\?/],
      [{ providerOptions: { openai: true } }, /"providerOptions": it must be an object of/],
      [{ headers: { "x-a": 1 } }, /"headers": it must be an object of header names to strings/],
    ];
    for (const [settings, message] of cases) {
      const error = await provider.generate({ ...userRequest("go"), settings }, {}).catch((e) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toMatch(message);
    }
    expect(server.requests).toHaveLength(0);
    await provider.generate(
      { ...userRequest("go"), settings: { reasoning: "low", topK: 3, presencePenalty: 0.5 } },
      {},
    );
    expect(server.requests).toHaveLength(1);
  });

  it("checks its own options: unknown keys with a did-you-mean, maxRetries a whole number", () => {
    const server = { url: "http://127.0.0.1:9" } as ReplayServer;
    const model = openaiModel(server);
    expect(() => fromAISDK(model, { nmae: "x" } as never)).toThrow(
      /fromAISDK: unknown option `nmae`; did you mean `name`\?/,
    );
    expect(() => fromAISDK(model, { retries: 3 } as never)).toThrow(/did you mean `maxRetries`/);
    expect(() => fromAISDK(model, { maxRetries: -1 })).toThrow(TypeError);
    expect(() => fromAISDK(model, { maxRetries: 1.5 })).toThrow(/whole number >= 0, got 1.5/);
    expect(() => fromAISDK(model, null as never)).toThrow(TypeError);
    expect(fromAISDK(model, { name: "mine", maxRetries: 0 }).name).toBe("mine");
  });

  it("structured output: @ai-sdk/openai sends strict: true unless providerOptions says strictJsonSchema: false", async () => {
    const server = await serve(() => jsonAnswer(recording("openai-chat/openai-text.json")));
    const provider = fromAISDK(openaiModel(server));
    const schema = { type: "object", properties: { city: { type: "string" } } };
    const request: ModelRequest = {
      ...userRequest("go"),
      responseFormat: { type: "json", schema, name: "answer" },
    };
    await provider.generate(request, {});
    await provider.generate(
      { ...request, settings: { providerOptions: { openai: { strictJsonSchema: false } } } },
      {},
    );
    const strict = server.requests.map((r) => r.json().response_format?.json_schema?.strict);
    expect(strict).toEqual([true, false]);
  });
});
