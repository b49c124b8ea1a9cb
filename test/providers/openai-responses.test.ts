import { decodeReasoningSignature, openAIResponses } from "tollgate/openai";
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
  await server?.close();
  server = undefined;
});

async function serve(answers: ReplayAnswer[], maxRetries?: number) {
  server = await startReplayServer(answers);
  const provider = openAIResponses({
    model: "gpt-5-mini",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test-key-000",
    ...(maxRetries !== undefined && { maxRetries }),
  });
  return { server, provider };
}

/** The responses of a format-B recording that holds several back to back, split on `response.created`. */
function responsesOf(path: string): any[][] {
  const responses: any[][] = [];
  for (const line of chunkLines(path)) {
    if (line.type === "response.created") responses.push([]);
    responses[responses.length - 1]?.push(line);
  }
  return responses;
}

const calculator: ToolSpec = {
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } },
    required: ["a", "b", "op"],
  },
};

describe.each(STREAM_MODES)("openAIResponses stream, replayed with split %o", (mode) => {
  it("a reasoning model's 4-step run; encrypted reasoning goes back in the next request (vercel openai-reasoning-encrypted-content.1.chunks.txt)", async () => {
    const responses = responsesOf(
      "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt",
    );
    expect(responses).toHaveLength(4);
    const { provider, server } = await serve(
      responses.map((r) => sse(chunksToSSE(r, "typed-events"), mode)),
    );
    const settings = {
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "detailed" },
    };
    const messages: Message[] = [
      { role: "user", content: "Compute (12 + 7) × 3 × 10 step by step." },
    ];
    const expected = [
      {
        id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        args: '{"a":12,"b":7,"op":"add"}',
        usage: [134, 28, 162],
        output: 19,
      },
      {
        id: "call_Q6pW65MUgW9vF59BmItYGos3",
        args: '{"a":19,"b":3,"op":"multiply"}',
        usage: [221, 26, 247],
        output: 57,
      },
      {
        id: "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
        args: '{"a":57,"b":10,"op":"multiply"}',
        usage: [260, 26, 286],
        output: 570,
      },
    ];

    // Step 1: a reasoning item (summary streamed, encrypted content at output_item.done), then a call.
    const first = await runStream(provider, {
      messages: [...messages],
      tools: [calculator],
      settings,
    });
    expect(first.error).toBeUndefined();
    const done = responses[0]?.find(
      (e) => e.type === "response.output_item.done" && e.item.type === "reasoning",
    ).item;
    const reasoning = first.response.parts[0];
    expect(reasoning?.type).toBe("reasoning");
    expect(reasoningOf(first.response)).toBe(done.summary[0].text);
    const signature = decodeReasoningSignature(
      reasoning?.type === "reasoning" ? reasoning.signature : undefined,
    );
    expect(signature).toEqual({
      id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
      encrypted_content: done.encrypted_content,
    });
    // The encrypted content changes between output_item.added and .done: the final one is kept.
    const added = responses[0]?.find(
      (e) => e.type === "response.output_item.added" && e.item.type === "reasoning",
    ).item;
    expect(signature?.encrypted_content).not.toBe(added.encrypted_content);

    let turn = first;
    for (const [step, call] of expected.entries()) {
      if (step > 0)
        turn = await runStream(provider, {
          messages: [...messages],
          tools: [calculator],
          settings,
        });
      expect(turn.error).toBeUndefined();
      expect(callsOf(turn.response)).toEqual([
        { type: "tool-call", id: call.id, name: "calculator", args: call.args },
      ]);
      expect(turn.response.finishReason).toBe("tool-calls");
      const [input, output, total] = call.usage as [number, number, number];
      expect(turn.response.usage).toEqual({
        inputTokens: input,
        outputTokens: output,
        totalTokens: total,
        cachedInputTokens: 0,
        reasoningTokens: 0,
      });
      messages.push({ role: "assistant", parts: turn.response.parts });
      messages.push({
        role: "tool",
        results: [
          { toolCallId: call.id, toolName: "calculator", output: call.output, isError: false },
        ],
      });
    }
    const last = await runStream(provider, {
      messages: [...messages],
      tools: [calculator],
      settings,
    });
    expect(last.response.parts).toEqual([{ type: "text", text: "The final result is **570**." }]);
    expect(last.response.finishReason).toBe("stop");

    // Request 2 sends the reasoning item back, whole, before the call it led to and its output.
    const second = server.requests[1]?.json();
    expect(second.store).toBe(false);
    expect(second.include).toEqual(["reasoning.encrypted_content"]);
    expect(second.input).toEqual([
      { role: "user", content: "Compute (12 + 7) × 3 × 10 step by step." },
      {
        type: "reasoning",
        id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
        encrypted_content: done.encrypted_content,
        summary: [{ type: "summary_text", text: done.summary[0].text }],
      },
      {
        type: "function_call",
        call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        name: "calculator",
        arguments: '{"a":12,"b":7,"op":"add"}',
      },
      { type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19" },
    ]);
    expect(server.requests[3]?.json().input).toHaveLength(8);
  });

  it("a stream that fails with an error event (vercel openai-error.1.chunks.txt)", async () => {
    const lines = chunkLines("openai-responses/openai-error.1.chunks.txt");
    const { provider } = await serve([sse(chunksToSSE(lines, "typed-events"), mode)]);
    const { error, deltas } = await runStream(provider, userRequest("hi"));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(
      "openai reported an error (insufficient_quota): You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    );
    expect((error as ProviderError).retryable).toBe(false);
    expect(deltas).toEqual([]);
  });

  it("a function call, then text, with raw `event:` lines (pydantic-ai test_openai_responses_stream.yaml)", async () => {
    const interactions = cassette("openai-responses/test_openai_responses_stream.yaml");
    const { provider, server } = await serve(interactions.map((i) => cassetteAnswer(i, mode)));
    const recorded = interactions[0]?.request.parsed_body;
    const tools: ToolSpec[] = recorded.tools.map((t: any) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.parameters,
    }));
    const request: ModelRequest = {
      messages: [{ role: "user", content: "What is the capital of France?" }],
      tools,
      toolChoice: "auto",
    };
    const first = await runStream(provider, request);
    expect(first.response.parts).toEqual([
      {
        type: "tool-call",
        id: "call_kL0PCQV7M2WMoVX8V8OtYSAL",
        name: "get_capital",
        args: '{"country":"France"}',
      },
    ]);
    expect(first.response.usage).toMatchObject({
      inputTokens: 255,
      outputTokens: 16,
      totalTokens: 271,
    });
    const sent = server.requests[0]?.json();
    expect(sent.input).toEqual(recorded.input);
    expect(sent.tool_choice).toBe("auto");
    expect(sent.tools).toEqual([{ ...recorded.tools[0], strict: false }]);

    const second = await runStream(provider, {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", parts: first.response.parts },
        {
          role: "tool",
          results: [
            {
              toolCallId: "call_kL0PCQV7M2WMoVX8V8OtYSAL",
              toolName: "get_capital",
              output: "Paris",
              isError: false,
            },
          ],
        },
      ],
    });
    expect(textOf(second.response)).toBe("The capital of France is Paris.");
    expect(second.response.usage).toMatchObject({
      inputTokens: 278,
      outputTokens: 9,
      totalTokens: 287,
    });
    // The result is keyed by call_id (call_…), not by the item id (fc_…).
    expect(server.requests[1]?.json().input).toEqual([
      { role: "user", content: "What is the capital of France?" },
      {
        type: "function_call",
        call_id: "call_kL0PCQV7M2WMoVX8V8OtYSAL",
        name: "get_capital",
        arguments: '{"country":"France"}',
      },
      { type: "function_call_output", call_id: "call_kL0PCQV7M2WMoVX8V8OtYSAL", output: "Paris" },
    ]);
  });

  it("a stream that stops before response.completed is a ProviderError", async () => {
    const lines =
      responsesOf("openai-responses/openai-reasoning-encrypted-content.1.chunks.txt")[3] ?? [];
    const cut = lines.filter((line) => line.type !== "response.completed");
    const { provider } = await serve([sse(chunksToSSE(cut, "typed-events"), mode)]);
    const { error, response } = await runStream(provider, userRequest("hi"));
    expect((error as ProviderError).message).toMatch(/stream ended before response.completed/);
    expect(textOf(response)).toBe("The final result is **570**.");
  });
});

describe("openAIResponses generate", () => {
  it("reasoning item with encrypted content and summary, then a message (vercel openai-reasoning-encrypted-content.1.json)", async () => {
    const file = "openai-responses/openai-reasoning-encrypted-content.1.json";
    const body = recordingJson(file);
    const { provider } = await serve([jsonAnswer(recording(file), 200)]);
    const response = await provider.generate(userRequest("12+7, ×3, ×10"), {});
    expect(response.parts).toHaveLength(2);
    const [reasoning, text] = response.parts;
    expect(reasoning).toEqual({
      type: "reasoning",
      text: body.output[0].summary[0].text,
      signature: JSON.stringify({
        id: body.output[0].id,
        encrypted_content: body.output[0].encrypted_content,
      }),
    });
    expect(text).toEqual({
      type: "text",
      text: "12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570",
    });
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({
      inputTokens: 865,
      outputTokens: 163,
      totalTokens: 1028,
      cachedInputTokens: 0,
      reasoningTokens: 128,
    });
  });

  it("two parallel function calls, both sent back with their outputs (pydantic-ai test_openai_responses_model_retry.yaml)", async () => {
    const interactions = cassette("openai-responses/test_openai_responses_model_retry.yaml");
    const { provider, server } = await serve(interactions.map((i) => cassetteAnswer(i)));
    const recorded = interactions[1]?.request.parsed_body;
    const tools: ToolSpec[] = [
      { name: "get_location", description: "", inputSchema: recorded.tools[0].parameters },
    ];
    const request: ModelRequest = {
      messages: [{ role: "user", content: "What is the location of Londos and London?" }],
      tools,
    };
    const first = await provider.generate(request, {});
    expect(first.parts).toEqual([
      {
        type: "tool-call",
        id: "call_LWVp74L5HaH2KNvgVz9PJsrj",
        name: "get_location",
        args: '{"loc_name":"Londos"}',
      },
      {
        type: "tool-call",
        id: "call_YnRAWeTyxI91m5uNa5bxXwVO",
        name: "get_location",
        args: '{"loc_name":"London"}',
      },
    ]);
    expect(first.finishReason).toBe("tool-calls");
    const outputs = recorded.input.filter((item: any) => item.type === "function_call_output");
    const second = await provider.generate(
      {
        ...request,
        messages: [
          ...request.messages,
          { role: "assistant", parts: first.parts },
          {
            role: "tool",
            results: [
              {
                toolCallId: outputs[0].call_id,
                toolName: "get_location",
                output: outputs[0].output,
                isError: true,
              },
              {
                toolCallId: outputs[1].call_id,
                toolName: "get_location",
                output: outputs[1].output,
                isError: false,
              },
            ],
          },
        ],
      },
      {},
    );
    expect(textOf(second)).toBe(
      interactions[1]?.response.parsed_body &&
        (interactions[1].response.parsed_body as any).output[0].content[0].text,
    );
    expect(second.usage).toMatchObject({ inputTokens: 335, outputTokens: 44, totalTokens: 379 });
    // What we sent equals what the real client sent, minus its empty assistant message.
    const expectedInput = recorded.input.filter(
      (item: any) => !(item.role === "assistant" && item.content === ""),
    );
    expect(server.requests[1]?.json().input).toEqual(expectedInput);
  });

  it("an HTTP 400 for a bad parameter (vercel reasoning-model-temperature-error.json)", async () => {
    const { provider, server } = await serve([
      jsonAnswer(recording("openai-responses/reasoning-model-temperature-error.json"), 400),
    ]);
    const error = (await provider
      .generate({ ...userRequest("hi"), settings: { temperature: 0 } }, {})
      .catch((e) => e)) as ProviderError;
    expect(error.message).toBe(
      `openai returned HTTP 400 invalid_request_error: Unsupported parameter: 'temperature' is not supported with this model. (POST ${server.url}/v1/responses)`,
    );
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
  });

  it("an insufficient_quota 429 (vercel openai-error.1.json)", async () => {
    const { provider, server } = await serve(
      [jsonAnswer(recording("openai-responses/openai-error.1.json"), 429)],
      0,
    );
    const error = (await provider.generate(userRequest("hi"), {}).catch((e) => e)) as ProviderError;
    expect(error.message).toMatch(
      /^openai returned HTTP 429 insufficient_quota: You exceeded your current quota/,
    );
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe("openAIResponses: errors before the stream starts", () => {
  it("a stream request refused up front with HTTP 400 (pydantic-ai test_openai_responses_model_http_error.yaml)", async () => {
    const interactions = cassette("openai-responses/test_openai_responses_model_http_error.yaml");
    const { provider, server } = await serve(interactions.map((i) => cassetteAnswer(i)));
    const { error } = await runStream(provider, {
      ...userRequest("What is the capital of France?"),
      settings: { temperature: -1 },
    });
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(
      `openai returned HTTP 400 invalid_request_error: Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead. (POST ${server.url}/v1/responses)`,
    );
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.json()).toMatchObject({
      stream: true,
      temperature: -1,
      input: interactions[0]?.request.parsed_body.input,
    });
  });
});

describe("openAIResponses request shape", () => {
  it("maps system to instructions, tool choice, settings, and skips reasoning it cannot send back", async () => {
    const { provider, server } = await serve([
      jsonAnswer(recording("openai-responses/openai-reasoning-encrypted-content.1.json"), 200),
    ]);
    await provider.generate(
      {
        system: "be brief",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            parts: [
              { type: "reasoning", text: "from another provider", signature: "EqoBCkgIARABGAIiQL" },
              { type: "reasoning", text: "no signature" },
              { type: "text", text: "ok" },
            ],
          },
        ],
        tools: [calculator],
        toolChoice: { name: "calculator" },
        settings: {
          temperature: 1,
          topP: 0.5,
          maxOutputTokens: 64,
          stopSequences: ["x"],
          seed: 3,
          reasoning: { effort: "low" },
        },
      },
      {},
    );
    expect(server.requests[0]?.json()).toEqual({
      model: "gpt-5-mini",
      instructions: "be brief",
      input: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "ok" },
      ],
      tools: [
        {
          type: "function",
          name: "calculator",
          description: calculator.description,
          parameters: calculator.inputSchema,
          strict: false,
        },
      ],
      tool_choice: { type: "function", name: "calculator" },
      temperature: 1,
      top_p: 0.5,
      max_output_tokens: 64,
      reasoning: { effort: "low" },
    });
  });
});
