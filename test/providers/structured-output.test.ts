// Native structured output ("native" mode) on each adapter, through the loop, over the replay
// server on 127.0.0.1. No real recording of a structured-output exchange is in
// test/fixtures/real, so each response below is record-shaped: built from the provider's
// documented response format (OpenAI Chat `chat.completion`, OpenAI Responses `response`,
// Anthropic `message`, Gemini `GenerateContentResponse`), with the answer as JSON text.
// Anthropic's field is `output_config.format` (JSON outputs, generally available; the beta's
// top-level `output_format` is not sent).
import { AgentLoop, OutputValidationError, type Provider } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";
import { jsonAnswer } from "./support/recordings.js";

// .strict(): closed objects, so OpenAI gets `strict: true` (see the test of an open one below).
const City = z.object({ city: z.string(), celsius: z.number() }).strict();
const answer = '{"city":"Oslo","celsius":21}';
const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};
const { $schema: _, ...schemaWithoutDialect } = schema;

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Case {
  name: string;
  provider: (url: string) => Provider;
  path: string;
  body: (text: string) => unknown;
  /** The structured-output fields of the request body, exactly. */
  sent: (json: any) => unknown;
  expected: unknown;
}

const cases: Case[] = [
  {
    name: "OpenAI Chat: response_format json_schema, strict",
    provider: (url) => openAIChat({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey: "sk-test" }),
    path: "/v1/chat/completions",
    body: (text) => ({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-2024-08-06",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text, refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
    }),
    sent: (json) => json.response_format,
    expected: {
      type: "json_schema",
      json_schema: {
        name: "final_answer",
        description: "The weather.",
        schema,
        strict: true,
      },
    },
  },
  {
    name: "OpenAI Responses: text.format json_schema, strict",
    provider: (url) =>
      openAIResponses({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey: "sk-test" }),
    path: "/v1/responses",
    body: (text) => ({
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      model: "gpt-4o-2024-08-06",
      output: [
        {
          type: "message",
          id: "msg_1",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 20, output_tokens: 9, total_tokens: 29 },
    }),
    sent: (json) => json.text,
    expected: {
      format: {
        type: "json_schema",
        name: "final_answer",
        description: "The weather.",
        schema,
        strict: true,
      },
    },
  },
  {
    name: "Anthropic: output_config.format json_schema",
    provider: (url) =>
      anthropic({ model: "claude-sonnet-4-5", baseURL: `${url}/v1`, apiKey: "sk-ant-test" }),
    path: "/v1/messages",
    body: (text) => ({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 9 },
    }),
    sent: (json) => json.output_config,
    expected: { format: { type: "json_schema", schema } },
  },
  {
    name: "Gemini: responseMimeType application/json and responseJsonSchema",
    provider: (url) =>
      gemini({ model: "gemini-2.5-flash", baseURL: `${url}/v1beta`, apiKey: "g-test" }),
    path: "/v1beta/models/gemini-2.5-flash:generateContent",
    body: (text) => ({
      candidates: [
        { content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 },
      ],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 9, totalTokenCount: 29 },
      modelVersion: "gemini-2.5-flash",
    }),
    sent: (json) => json.generationConfig,
    expected: { responseMimeType: "application/json", responseJsonSchema: schemaWithoutDialect },
  },
];

const served = (c: Case, text: string) => jsonAnswer(JSON.stringify(c.body(text)));

/**
 * The adapter without its `stream`, so the loop calls `generate` (one JSON answer); Gemini's
 * `generate` reads its SSE endpoint too.
 */
const generateOnly = (provider: Provider): Provider => ({
  name: provider.name,
  model: provider.model,
  supportsNativeOutput: provider.supportsNativeOutput === true,
  generate: (request, options) => provider.generate(request, options),
});

describe.each(cases)("$name", (c) => {
  it("is the default mode: sends the schema, reads the answer as the run's output", async () => {
    server = await startReplayServer([served(c, answer)]);
    const provider = c.provider(server.url);
    expect(provider.supportsNativeOutput).toBe(true);
    const loop = new AgentLoop({
      provider: generateOnly(provider),
      output: { schema: City, description: "The weather." },
    });
    const result = await loop.run("Weather in Oslo?");
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ city: "Oslo", celsius: 21 });
    const request = server.requests[0]!;
    expect(request.url).toBe(c.path);
    expect(c.sent(request.json())).toEqual(c.expected);
  });

  it("an answer that fails the schema is sent back with its path, then OutputValidationError", async () => {
    const wrong = '{"city":"Oslo"}';
    server = await startReplayServer([served(c, wrong), served(c, wrong)]);
    const loop = new AgentLoop({ provider: generateOnly(c.provider(server.url)), output: City });
    const error = await loop.run("Weather in Oslo?").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    const second = JSON.stringify(server.requests[1]!.json());
    expect(second).toContain("does not match the schema: celsius:");
  });
});

describe("OpenAI strict mode", () => {
  it("is off for a schema strict mode would refuse (an open object, an optional field)", async () => {
    server = await startReplayServer([jsonAnswer(JSON.stringify(cases[0]!.body(answer)))]);
    const open = z.object({ city: z.string(), celsius: z.number().optional() });
    const loop = new AgentLoop({
      provider: generateOnly(cases[0]!.provider(server.url)),
      output: open,
    });
    const result = await loop.run("Weather in Oslo?");
    expect(result.output).toEqual({ city: "Oslo", celsius: 21 });
    expect(server.requests[0]!.json().response_format.json_schema.strict).toBe(false);
  });
});
