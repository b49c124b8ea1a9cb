import { AgentLoop, defineProvider, ModelRefusalError, type Provider } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ReplayAnswer,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";
import { jsonAnswer, recording, STREAM_MODES, sse } from "./support/recordings.js";

/**
 * A refusal is not an answer (DESIGN §11 "Refusals"), provider by provider, over real HTTP on
 * 127.0.0.1: each adapter reports the provider's refusal as finish reason "content-filter"
 * (its words as the text), and a run with structured output ends with `ModelRefusalError` after
 * ONE model call, not a re-prompt blaming JSON.
 *
 * OpenAI Chat is replayed from real recordings (openai-python's test_parse_pydantic_model_refusal,
 * whole and streamed). The shared fixtures hold no refusal of the Responses API, Anthropic or
 * Gemini, so those answers are written here, minimal, in each API's documented wire format.
 */

const City = z.object({ city: z.string(), celsius: z.number() });

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Kind = "chat" | "responses" | "anthropic" | "gemini";

/** The adapter of `kind` against a replay server giving `answer`; `whole`: generate() only. */
async function providerOf(kind: Kind, answer: ReplayAnswer, whole: boolean): Promise<Provider> {
  server = await startReplayServer([answer]);
  const { url } = server;
  const real =
    kind === "chat"
      ? openAIChat({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey: "sk-test-key-000" })
      : kind === "responses"
        ? openAIResponses({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey: "sk-test-key-000" })
        : kind === "anthropic"
          ? anthropic({ model: "claude-sonnet-4-5", baseURL: `${url}/v1`, apiKey: "sk-ant-0000" })
          : gemini({ model: "gemini-2.5-flash", baseURL: `${url}/v1beta`, apiKey: "AIza-0000" });
  if (!whole) return real;
  // The loop consumes a stream when there is one: without it, it reads the whole answer.
  return defineProvider({
    name: real.name,
    model: real.model,
    supportsNativeOutput: true,
    generate: (request, options) => real.generate(request, options),
  });
}

/** Runs a loop with structured output (native mode) over `provider`; returns its rejection. */
async function refusalOf(provider: Provider): Promise<ModelRefusalError> {
  const loop = new AgentLoop({ provider, output: City });
  const error = await loop.run("Weather in Oslo, as JSON").catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ModelRefusalError);
  expect(server?.requests).toHaveLength(1); // no re-prompt
  return error as ModelRefusalError;
}

describe("OpenAI Chat: message.refusal and delta.refusal (real recordings)", () => {
  it("a whole answer with message.refusal (openai-python …model_refusal.json)", async () => {
    const body = recording("openai-chat/test_completions.test_parse_pydantic_model_refusal.json");
    const provider = await providerOf("chat", jsonAnswer(body), true);
    const error = await refusalOf(provider);
    expect(error.finishReason).toBe("content-filter");
    expect(error.refusal).toBe("I'm very sorry, but I can't assist with that.");
    expect(error.step).toBe(0);
    expect(error.messages?.at(-1)).toEqual({
      role: "assistant",
      parts: [{ type: "text", text: "I'm very sorry, but I can't assist with that." }],
    });
  });

  it.each(STREAM_MODES)(
    "a refusal streamed in delta.refusal (openai-python 173417…bin), split %o",
    async (mode) => {
      const body = recording(
        "openai-chat/173417d553406f034f643e5db3f8d591fb691ebac56f5ae39a22cc7d455c5353.bin",
      );
      const provider = await providerOf("chat", sse(body, mode), false);
      const error = await refusalOf(provider);
      expect(error.refusal).toBe("I'm sorry, I can't assist with that request.");
    },
  );

  it("without structured output the refusal is the run's text, and its finish reason says so", async () => {
    const body = recording("openai-chat/test_completions.test_parse_pydantic_model_refusal.json");
    const provider = await providerOf("chat", jsonAnswer(body), true);
    const result = await new AgentLoop({ provider }).run("Weather in Oslo");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("I'm very sorry, but I can't assist with that.");
    expect(result.finishReason).toBe("content-filter");
  });
});

const REFUSAL = "I'm sorry, but I can't help with that.";

/** A Responses API response object holding a message with one refusal part. */
const refusedResponse = (status: "in_progress" | "completed") => ({
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  status,
  model: "gpt-4o-2024-08-06",
  output:
    status === "completed"
      ? [
          {
            type: "message",
            id: "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
            status: "completed",
            role: "assistant",
            content: [{ type: "refusal", refusal: REFUSAL }],
          },
        ]
      : [],
  usage: status === "completed" ? { input_tokens: 36, output_tokens: 11, total_tokens: 47 } : null,
});

/** The Responses API's stream of that response, event by event, as the API names them. */
function refusedResponseStream(): string {
  const item = { id: "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b", output_index: 0 };
  const events = [
    { type: "response.created", response: refusedResponse("in_progress") },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id: item.id, status: "in_progress", role: "assistant", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: "refusal", refusal: "" },
    },
    ...["I'm sorry, but", " I can't help", " with that."].map((delta) => ({
      type: "response.refusal.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta,
    })),
    {
      type: "response.refusal.done",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      refusal: REFUSAL,
    },
    {
      type: "response.output_item.done",
      output_index: 0,
      item: refusedResponse("completed").output[0],
    },
    { type: "response.completed", response: refusedResponse("completed") },
  ];
  return events
    .map((event, sequence_number) => {
      const data = JSON.stringify({ ...event, sequence_number });
      return `event: ${event.type}\ndata: ${data}\n\n`;
    })
    .join("");
}

describe("OpenAI Responses: a refusal content part (wire format written here)", () => {
  it("a whole response", async () => {
    const provider = await providerOf(
      "responses",
      jsonAnswer(JSON.stringify(refusedResponse("completed"))),
      true,
    );
    const error = await refusalOf(provider);
    expect(error.refusal).toBe(REFUSAL);
  });

  it.each(STREAM_MODES)("a stream of response.refusal.delta events, split %o", async (mode) => {
    const provider = await providerOf("responses", sse(refusedResponseStream(), mode), false);
    const error = await refusalOf(provider);
    expect(error.refusal).toBe(REFUSAL);
  });
});

/** An Anthropic message that stopped with stop_reason "refusal" after some text. */
const refusedMessage = {
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "I can't help with that." }],
  stop_reason: "refusal",
  stop_sequence: null,
  usage: { input_tokens: 25, output_tokens: 8 },
};

function refusedMessageStream(): string {
  const { content, stop_reason, usage, ...message } = refusedMessage;
  const events = [
    {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "ping" },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "I can't help" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " with that." } },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: "message_stop" },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

describe('Anthropic: stop_reason "refusal" (wire format written here)', () => {
  it("a whole message", async () => {
    const provider = await providerOf(
      "anthropic",
      jsonAnswer(JSON.stringify(refusedMessage)),
      true,
    );
    const error = await refusalOf(provider);
    expect(error.refusal).toBe("I can't help with that.");
  });

  it.each(STREAM_MODES)("a stream, split %o", async (mode) => {
    const provider = await providerOf("anthropic", sse(refusedMessageStream(), mode), false);
    const error = await refusalOf(provider);
    expect(error.refusal).toBe("I can't help with that.");
  });
});

const SAFETY_RATINGS = [
  { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
  { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
];

describe("Gemini: finishReason SAFETY, and a blocked prompt (wire format written here)", () => {
  const blockedCandidate = {
    candidates: [{ finishReason: "SAFETY", index: 0, safetyRatings: SAFETY_RATINGS }],
    usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
    modelVersion: "gemini-2.5-flash",
  };
  const blockedPrompt = {
    promptFeedback: { blockReason: "SAFETY", safetyRatings: SAFETY_RATINGS },
    usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
    modelVersion: "gemini-2.5-flash",
  };

  it.each([
    ["a candidate stopped by SAFETY", blockedCandidate],
    ["a prompt blocked by promptFeedback", blockedPrompt],
  ])("%s, whole and streamed", async (_, body) => {
    const whole = await providerOf("gemini", jsonAnswer(JSON.stringify(body)), true);
    const error = await refusalOf(whole);
    expect(error.finishReason).toBe("content-filter");
    expect(error.refusal).toBeUndefined(); // Gemini gives no words with it
    await server?.close();
    const streamed = await providerOf(
      "gemini",
      sse(`data: ${JSON.stringify(body)}\r\n\r\n`, { split: "odd" }),
      false,
    );
    expect((await refusalOf(streamed)).finishReason).toBe("content-filter");
  });
});
