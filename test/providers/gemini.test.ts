import { gemini } from "tollgate/gemini";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { Message, ToolSpec } from "../../src/types/messages.js";
import type { ModelRequest, ModelResponse } from "../../src/types/provider.js";
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
  recording,
  recordingJson,
  runStream,
  STREAM_MODES,
  sse,
  textOf,
  userRequest,
} from "./support/recordings.js";

const jsonAnswerOf = (body: string, status = 200) =>
  jsonAnswer(body, status, "application/json; charset=UTF-8");

const KEY = "AIza-test-key-0000000";
let server: ReplayServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function serve(answers: ReplayAnswer[], model = "gemini-3-pro-preview") {
  server = await startReplayServer(answers);
  return { server, provider: gemini({ model, baseURL: `${server.url}/v1beta`, apiKey: KEY }) };
}

/** The data frames of a raw Gemini SSE body, parsed (a test-side reading of the recording). */
const framesOf = (raw: string): any[] =>
  raw
    .split("\r\n\r\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => JSON.parse(frame.slice(6)));

const partsOfFrames = (frames: any[]): any[] =>
  frames.flatMap((f) => f.candidates?.[0]?.content?.parts ?? []);

/** pydantic-ai re-sends signatures base64url-encoded; the API gives standard base64. */
const base64url = (value: string) => value.replaceAll("+", "-").replaceAll("/", "_");

/**
 * A content list reduced to what both clients must agree on: roles, and per part the text,
 * thought flag, function name and args, function response value and the signature.
 */
const shapeOf = (contents: any[]) =>
  contents.map((content) => ({
    role: content.role,
    parts: content.parts.map((part: any) => ({
      ...(part.text !== undefined && { text: part.text }),
      ...(part.thought && { thought: true }),
      ...(part.functionCall && { call: part.functionCall.name, args: part.functionCall.args }),
      ...(part.functionResponse && {
        response: part.functionResponse.name,
        value: part.functionResponse.response.output ?? part.functionResponse.response.return_value,
      }),
      ...(part.thoughtSignature && { signature: base64url(part.thoughtSignature) }),
    })),
  }));

/** The tool specs of a recorded Gemini request. */
const toolsOf = (body: any): ToolSpec[] =>
  body.tools[0].functionDeclarations.map((d: any) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.parameters_json_schema ?? { type: "object", properties: {} },
  }));

/** The results a recorded request answers `calls` with. */
function recordedResults(body: any, calls: { id: string; name: string }[], turn: number): Message {
  const answers = body.contents.filter(
    (c: any) => c.role === "user" && c.parts[0].functionResponse,
  )[turn];
  return {
    role: "tool",
    results: calls.map((call, i) => ({
      toolCallId: call.id,
      toolName: call.name,
      output: answers.parts[i].functionResponse.response.return_value,
      isError: false,
    })),
  };
}

describe.each(STREAM_MODES)("gemini stream, replayed with split %o", (mode) => {
  it("text, then an empty part with a signature (vercel google-text.chunks.txt)", async () => {
    const lines = chunkLines("google/google-text.chunks.txt");
    const { provider, server } = await serve([sse(chunksToSSE(lines, "gemini"), mode)]);
    const { response } = await runStream(provider, userRequest("How many r's in strawberry?"));
    expect(response.parts).toEqual([
      { type: "text", text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y' },
      {
        type: "reasoning",
        text: "",
        signature: lines[2].candidates[0].content.parts[0].thoughtSignature,
      },
    ]);
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({
      inputTokens: 9,
      outputTokens: 23 + 185,
      totalTokens: 217,
      reasoningTokens: 185,
    });
    expect(server.requests[0]?.url).toBe(
      "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
    );
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe(KEY);
  });

  it("a whole functionCall with its signature, no id given (vercel google-tool-call.chunks.txt)", async () => {
    const lines = chunkLines("google/google-tool-call.chunks.txt");
    const { provider } = await serve([sse(chunksToSSE(lines, "gemini"), mode)]);
    const { response } = await runStream(provider, userRequest("weather in SF"));
    const [reasoning, call] = response.parts;
    expect(reasoning).toEqual({
      type: "reasoning",
      text: "",
      signature: lines[0].candidates[0].content.parts[0].thoughtSignature,
    });
    expect(call).toMatchObject({
      type: "tool-call",
      name: "weather",
      args: '{"location":"San Francisco"}',
    });
    expect(call?.type === "tool-call" && call.id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 29,
      outputTokens: 15 + 45,
      totalTokens: 89,
      reasoningTokens: 45,
    });
  });

  it("Vertex streamed function-call arguments (vercel google-stream-tool-call-arguments.chunks.txt)", async () => {
    const lines = chunkLines("google/google-stream-tool-call-arguments.chunks.txt");
    const { provider } = await serve(
      [sse(chunksToSSE(lines, "gemini"), mode)],
      "gemini-3.1-pro-preview",
    );
    const { response, deltas } = await runStream(provider, userRequest("weather in Boston and SF"));
    const calls = callsOf(response);
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "getWeather", args: '{"location":"Boston"}' },
      { name: "getWeather", args: '{"location":"San Francisco"}' },
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(
      deltas
        .filter((d) => d.type === "tool-call-delta")
        .map((d) => d.type === "tool-call-delta" && d.index),
    ).toEqual([0, 0, 1, 1]);
    expect(response.parts[0]).toEqual({
      type: "reasoning",
      text: "",
      signature: lines[0].candidates[0].content.parts[0].thoughtSignature,
    });
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 26,
      outputTokens: 23 + 132,
      totalTokens: 181,
      reasoningTokens: 132,
    });
  });

  it("thought summaries stream as reasoning; the answer's signature stays with them (pydantic-ai test_google_model_thinking_part_iter.yaml)", async () => {
    const [interaction] = cassette("google/test_google_model_thinking_part_iter.yaml");
    if (!interaction) throw new Error("empty cassette");
    const { provider, server } = await serve([cassetteAnswer(interaction, mode)], "gemini-2.5-pro");
    const recorded = interaction.request.parsed_body;
    const { response, deltas } = await runStream(provider, {
      system: recorded.systemInstruction.parts[0].text,
      messages: [{ role: "user", content: recorded.contents[0].parts[0].text }],
      tools: [{ name: "dummy", description: "", inputSchema: { type: "object", properties: {} } }],
      settings: { thinkingConfig: { includeThoughts: true } },
    });
    const parts = partsOfFrames(framesOf(interaction.response.body?.string ?? ""));
    const thoughts = parts.filter((p) => p.thought).map((p) => p.text);
    expect(thoughts).toHaveLength(4);
    expect(deltas.filter((d) => d.type === "reasoning-delta" && d.text !== "")).toHaveLength(4);
    expect(response.parts).toEqual([
      {
        type: "reasoning",
        text: thoughts.join(""),
        signature: parts.find((p) => p.thoughtSignature).thoughtSignature,
      },
      {
        type: "text",
        text: parts
          .filter((p) => !p.thought)
          .map((p) => p.text)
          .join(""),
      },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 34,
      outputTokens: 469 + 787,
      totalTokens: 1290,
      reasoningTokens: 787,
    });
    const sent = server.requests[0]?.json();
    expect(sent.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true } });
    expect(sent.systemInstruction).toEqual({ parts: [{ text: "You are a helpful assistant." }] });
    expect(sent.contents).toEqual(recorded.contents);
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: "dummy", description: "" }] }]);
  });

  it("a 3-turn loop with CRLF frames; results go back as functionResponse parts (pydantic-ai test_google_model_iter_stream.yaml)", async () => {
    const interactions = cassette("google/test_google_model_iter_stream.yaml");
    const { provider, server } = await serve(
      interactions.map((i) => cassetteAnswer(i, mode)),
      "gemini-2.0-flash",
    );
    const first = interactions[0]?.request.parsed_body;
    const tools: ToolSpec[] = [
      {
        name: "get_capital",
        description: "Get the capital of a country.",
        inputSchema: {
          type: "object",
          properties: { country: { type: "string", description: "The country name." } },
          required: ["country"],
          additionalProperties: false,
        },
      },
      {
        name: "get_temperature",
        description: "Get the temperature in a city.",
        inputSchema: {
          type: "object",
          properties: { city: { type: "string", description: "The city name." } },
          required: ["city"],
          additionalProperties: false,
        },
      },
    ];
    const messages: Message[] = [{ role: "user", content: first.contents[0].parts[0].text }];
    const expected = [
      { name: "get_capital", args: '{"country":"France"}' },
      { name: "get_temperature", args: '{"city":"Paris"}' },
    ];
    for (const [turn, interaction] of interactions.entries()) {
      const { response } = await runStream(provider, {
        system: first.systemInstruction.parts[0].text,
        messages: [...messages],
        tools,
      });
      const sent = server.requests[turn]?.json();
      expect(shapeOf(sent.contents)).toEqual(shapeOf(interaction.request.parsed_body.contents));
      // Each functionResponse names the id of the call it answers.
      const callIds = sent.contents.flatMap((c: any) =>
        c.parts.filter((p: any) => p.functionCall).map((p: any) => p.functionCall.id),
      );
      const responseIds = sent.contents.flatMap((c: any) =>
        c.parts.filter((p: any) => p.functionResponse).map((p: any) => p.functionResponse.id),
      );
      expect(responseIds).toEqual(callIds);
      const next = interactions[turn + 1];
      if (!next) {
        expect(textOf(response)).toBe("The temperature in Paris is 30°C.\n");
        expect(response.usage).toEqual({ inputTokens: 79, outputTokens: 12, totalTokens: 91 });
        break;
      }
      const calls = callsOf(response);
      expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([expected[turn]]);
      expect(response.finishReason).toBe("tool-calls");
      messages.push({ role: "assistant", parts: response.parts });
      messages.push(recordedResults(next.request.parsed_body, calls, turn));
    }
    expect(server.requests[0]?.json().tools[0].functionDeclarations[0]).toEqual({
      name: "get_capital",
      description: "Get the capital of a country.",
      parameters: {
        type: "object",
        properties: { country: { type: "string", description: "The country name." } },
        required: ["country"],
      },
    });
  });

  it("a streamed call's signature goes back on that call (pydantic-ai test_google_streaming_tool_call_thought_signature.yaml)", async () => {
    const interactions = cassette("google/test_google_streaming_tool_call_thought_signature.yaml");
    const { provider, server } = await serve(interactions.map((i) => cassetteAnswer(i, mode)));
    const body = interactions[0]?.request.parsed_body;
    const request: ModelRequest = {
      messages: [{ role: "user", content: body.contents[0].parts[0].text }],
      tools: toolsOf(body),
    };
    const first = await runStream(provider, request);
    const calls = callsOf(first.response);
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_country", args: "{}" },
    ]);
    expect(first.response.usage).toEqual({
      inputTokens: 29,
      outputTokens: 10 + 202,
      totalTokens: 241,
      reasoningTokens: 202,
    });
    const second = await runStream(provider, {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", parts: first.response.parts },
        recordedResults(interactions[1]?.request.parsed_body, calls, 0),
      ],
    });
    expect(textOf(second.response)).toBe("The capital of Mexico is Mexico City.");
    expect(second.response.usage).toEqual({ inputTokens: 257, outputTokens: 8, totalTokens: 265 });
    const sent = server.requests[1]?.json();
    expect(shapeOf(sent.contents)).toEqual(shapeOf(interactions[1]?.request.parsed_body.contents));
    expect(sent.contents[1].parts[0].thoughtSignature).toBe(
      framesOf(interactions[0]?.response.body?.string ?? "")[0].candidates[0].content.parts[0]
        .thoughtSignature,
    );
  });
});

describe("gemini generate", () => {
  it("text with a signature on the same part (vercel google-text.json)", async () => {
    const file = "google/google-text.json";
    const { provider, server } = await serve([jsonAnswerOf(recording(file))]);
    const response = await provider.generate(userRequest("How many r's in strawberry?"), {});
    const part = recordingJson(file).candidates[0].content.parts[0];
    expect(response.parts).toEqual([
      { type: "reasoning", text: "", signature: part.thoughtSignature },
      {
        type: "text",
        text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
      },
    ]);
    expect(response.usage).toEqual({
      inputTokens: 9,
      outputTokens: 28 + 244,
      totalTokens: 281,
      reasoningTokens: 244,
    });
    expect(response.finishReason).toBe("stop");
    expect(server.requests[0]?.url).toBe("/v1beta/models/gemini-3-pro-preview:generateContent");
  });

  it("a functionCall with its signature (vercel google-tool-call.json)", async () => {
    const file = "google/google-tool-call.json";
    const { provider } = await serve([jsonAnswerOf(recording(file))]);
    const response = await provider.generate(userRequest("weather in SF"), {});
    expect(response.parts[0]).toEqual({
      type: "reasoning",
      text: "",
      signature: recordingJson(file).candidates[0].content.parts[0].thoughtSignature,
    });
    expect(response.parts[1]).toMatchObject({
      type: "tool-call",
      name: "weather",
      args: '{"location":"San Francisco"}',
    });
    expect(response.finishReason).toBe("tool-calls");
    expect(response.usage).toEqual({
      inputTokens: 29,
      outputTokens: 15 + 893,
      totalTokens: 937,
      reasoningTokens: 893,
    });
  });

  it("a misspelled model: HTTP 404 with Google's message (pydantic-ai test_model_name_suggestion[google].yaml)", async () => {
    const interactions = cassette("google/test_model_name_suggestion[google].yaml");
    const { provider, server } = await serve(
      interactions.map((i) => cassetteAnswer(i)),
      "gemini-3.6-flahs",
    );
    const error = (await provider
      .generate(userRequest("hello"), {})
      .catch((e) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `gemini returned HTTP 404 NOT_FOUND: models/gemini-3.6-flahs is not found for API version v1beta, or is not supported for generateContent. Call ModelService.ListModels to see the list of available models and their supported methods. (POST ${server.url}/v1beta/models/gemini-3.6-flahs:generateContent)`,
    );
    expect(error.status).toBe(404);
    expect(error.retryable).toBe(false);
    expect(server.requests[0]?.url).toBe("/v1beta/models/gemini-3.6-flahs:generateContent");
  });

  it("three parallel calls, one signature; all results in ONE user content; 5 turns (pydantic-ai test_google_instructions_only_with_tool_calls.yaml)", async () => {
    const interactions = cassette("google/test_google_instructions_only_with_tool_calls.yaml");
    const { provider, server } = await serve(
      interactions.map((i) => cassetteAnswer(i)),
      "gemini-3-flash-preview",
    );
    const body = interactions[0]?.request.parsed_body;
    const messages: Message[] = [{ role: "user", content: "" }];
    const request = (): ModelRequest => ({
      system: body.systemInstruction.parts[0].text,
      messages: [...messages],
      tools: toolsOf(body),
      toolChoice: "required",
    });
    let response: ModelResponse | undefined;
    for (const [turn, interaction] of interactions.entries()) {
      response = await provider.generate(request(), {});
      const recorded = interaction.request.parsed_body;
      const sent = server.requests[turn]?.json();
      expect(shapeOf(sent.contents), `request ${turn}`).toEqual(shapeOf(recorded.contents));
      expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
      const answer = interaction.response.parsed_body as any;
      const expectedCalls = answer.candidates[0].content.parts.map((p: any) => ({
        name: p.functionCall.name,
        args: JSON.stringify(p.functionCall.args),
      }));
      const calls = callsOf(response);
      expect(calls.map(({ name, args }) => ({ name, args }))).toEqual(expectedCalls);
      expect(response.usage.totalTokens).toBe(answer.usageMetadata.totalTokenCount);
      const next = interactions[turn + 1];
      if (!next) break;
      messages.push({ role: "assistant", parts: response.parts });
      messages.push(recordedResults(next.request.parsed_body, calls, turn));
    }
    const second = server.requests[1]?.json();
    expect(second.contents[2].parts.map((p: any) => Object.keys(p))).toEqual([
      ["functionResponse"],
      ["functionResponse"],
      ["functionResponse"],
    ]);
    expect(second.contents[1].parts.map((p: any) => p.thoughtSignature !== undefined)).toEqual([
      true,
      false,
      false,
    ]);
    expect(JSON.parse(callsOf(response as ModelResponse)[0]?.args ?? "").response).toHaveLength(3);
  });
});

describe("gemini stream: errors and truncation", () => {
  it("a stream that ends without a finishReason is a ProviderError", async () => {
    const lines = chunkLines("google/google-text.chunks.txt").slice(0, 2);
    const { provider } = await serve([sse(chunksToSSE(lines, "gemini"), {})]);
    const { error, response } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).message).toMatch(
      /^gemini stream ended before a chunk with a finishReason/,
    );
    expect(textOf(response)).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
  });

  it("an error object inside the stream is a ProviderError with Google's message", async () => {
    const lines = chunkLines("google/google-text.chunks.txt").slice(0, 1);
    const frame =
      'data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}\r\n\r\n';
    const { provider } = await serve([sse(chunksToSSE(lines, "gemini") + frame, {})]);
    const { error } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).message).toBe(
      "gemini reported an error (UNAVAILABLE): The model is overloaded. Please try again later.",
    );
    expect((error as ProviderError).retryable).toBe(true);
  });
});

describe("gemini request shape", () => {
  it("maps system, thoughts and signatures, results, tool choice, schema and settings", async () => {
    const { provider, server } = await serve([jsonAnswerOf(recording("google/google-text.json"))]);
    await provider.generate(
      {
        system: "be brief",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            parts: [
              { type: "reasoning", text: "thinking", signature: "SIG1" },
              { type: "tool-call", id: "c1", name: "lookup", args: '{"q":"x"}' },
              { type: "tool-call", id: "c2", name: "lookup", args: '{"q":"y"}' },
            ],
          },
          {
            role: "tool",
            results: [
              { toolCallId: "c1", toolName: "lookup", output: { hits: 1 }, isError: false },
              { toolCallId: "c2", toolName: "lookup", output: "not found", isError: true },
            ],
          },
          { role: "user", content: "and?" },
          {
            role: "assistant",
            parts: [
              { type: "text", text: "Done." },
              { type: "reasoning", text: "", signature: "SIG2" },
            ],
          },
        ],
        tools: [
          {
            name: "lookup",
            description: "Look up",
            inputSchema: {
              $schema: "https://json-schema.org/draft/2020-12/schema",
              type: "object",
              properties: { q: { type: ["string", "null"], format: "uri" } },
              required: ["q"],
              additionalProperties: false,
            },
          },
        ],
        toolChoice: { name: "lookup" },
        settings: {
          temperature: 0.1,
          topP: 0.2,
          maxOutputTokens: 30,
          stopSequences: ["\n\n"],
          seed: 4,
          topK: 3,
          safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
        },
      },
      {},
    );
    expect(server.requests[0]?.json()).toEqual({
      contents: [
        { role: "user", parts: [{ text: "hi" }] },
        {
          role: "model",
          parts: [
            { text: "thinking", thought: true },
            {
              functionCall: { id: "c1", name: "lookup", args: { q: "x" } },
              thoughtSignature: "SIG1",
            },
            { functionCall: { id: "c2", name: "lookup", args: { q: "y" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "c1", name: "lookup", response: { output: { hits: 1 } } } },
            { functionResponse: { id: "c2", name: "lookup", response: { error: "not found" } } },
            { text: "and?" },
          ],
        },
        { role: "model", parts: [{ text: "Done." }, { text: "", thoughtSignature: "SIG2" }] },
      ],
      systemInstruction: { parts: [{ text: "be brief" }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "lookup",
              description: "Look up",
              parameters: {
                type: "object",
                properties: { q: { type: "string", nullable: true } },
                required: ["q"],
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] } },
      generationConfig: {
        temperature: 0.1,
        topP: 0.2,
        maxOutputTokens: 30,
        stopSequences: ["\n\n"],
        seed: 4,
        topK: 3,
      },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
    });
  });

  it("reads the key from GEMINI_API_KEY, else GOOGLE_API_KEY", async () => {
    server = await startReplayServer([
      jsonAnswerOf(recording("google/google-text.json")),
      jsonAnswerOf(recording("google/google-text.json")),
    ]);
    const provider = gemini({ model: "gemini-2.5-flash", baseURL: server.url });
    vi.stubEnv("GEMINI_API_KEY", "");
    vi.stubEnv("GOOGLE_API_KEY", "google-key-123");
    await provider.generate(userRequest("hi"), {});
    vi.stubEnv("GEMINI_API_KEY", "gemini-key-456");
    await provider.generate(userRequest("hi"), {});
    expect(server.requests.map((r) => r.headers["x-goog-api-key"])).toEqual([
      "google-key-123",
      "gemini-key-456",
    ]);
    expect(server.requests[0]?.url).toBe("/models/gemini-2.5-flash:generateContent");
  });
});
