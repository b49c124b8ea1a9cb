/**
 * The whole AgentLoop over each adapter, against real recorded multi-turn traffic: the loop runs
 * the tools, the adapters write the follow-up requests, and those requests must match what the
 * real clients sent when the recordings were made.
 */

import { AgentLoop, type LoopEvent, tool } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";
import {
  cassette,
  cassetteAnswer,
  chunkLines,
  chunksToSSE,
  exchangeAnswer,
  recordingJson,
} from "./support/recordings.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const split = { split: "odd", delayMs: 1 } as const;

describe("AgentLoop over the adapters, on recorded traffic", () => {
  it("openAIChat: parallel calls, a second step, then a final_result that ends the run (test_complex_agent_run.yaml)", async () => {
    const interactions = cassette("openai-chat/test_complex_agent_run.yaml");
    server = await startReplayServer(interactions.map((i) => cassetteAnswer(i, split)));
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: openAIChat({ model: "gpt-4o", baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      tools: [
        tool({
          name: "get_country",
          description: "",
          input: z.object({}),
          execute: async () => "Mexico",
        }),
        tool({
          name: "get_product_name",
          description: "",
          input: z.object({}),
          execute: async () => "Pydantic AI",
        }),
        tool({
          name: "get_weather",
          description: "",
          input: z.object({ city: z.string() }),
          execute: async () => "sunny",
        }),
        tool({
          name: "final_result",
          description: "The final response which ends this conversation",
          input: z.object({
            answers: z.array(z.object({ label: z.string(), answer: z.string() })),
          }),
          execute: async ({ answers }) => answers,
        }),
      ],
      policy: { endsRun: ({ call }) => call.name === "final_result" },
      onEvent: (event) => events.push(event),
    });
    const result = await loop.run(interactions[0]?.request.parsed_body.messages[0].content);
    expect(result.status).toBe("ended_by_tool");
    expect(result.endedBy?.name).toBe("final_result");
    expect((result.endedBy?.args as any)?.answers.map((a: any) => a.label)).toEqual([
      "Capital",
      "Weather",
      "Product Name",
    ]);
    expect(result.usage).toMatchObject({
      inputTokens: 364 + 423 + 448,
      outputTokens: 40 + 15 + 62,
      totalTokens: 404 + 438 + 510,
    });
    expect(server.requests).toHaveLength(3);
    for (const [i, interaction] of interactions.entries()) {
      const sent = server.requests[i]
        ?.json()
        .messages.map((m: any) => (m.content === null ? { ...m, content: undefined } : m));
      expect(JSON.parse(JSON.stringify(sent)), `request ${i}`).toEqual(
        interaction.request.parsed_body.messages,
      );
    }
    expect(events.filter((e) => e.type === "tool-call-delta").length).toBeGreaterThan(5);
  });

  it("anthropic: a streamed tool call, its result in one user turn, then the answer (555fb399….json)", async () => {
    const exchanges = recordingJson("anthropic/555fb399-a54c-455b-9ac5-2c9673f18e12.json");
    server = await startReplayServer(exchanges.map((x: any) => exchangeAnswer(x, split)));
    const recorded = exchanges[1].request.body;
    const loop = new AgentLoop({
      provider: anthropic({
        model: "claude-haiku-4-5",
        baseURL: `${server.url}/v1`,
        apiKey: "sk-ant-test",
      }),
      tools: [
        tool({
          name: "get_weather",
          description: "Lookup the weather for a given city in either celsius or fahrenheit",
          input: z.object({ location: z.string(), units: z.enum(["c", "f"]) }),
          execute: async () => recorded.messages[2].content[0].content,
        }),
      ],
      settings: { maxOutputTokens: 1024 },
    });
    const result = await loop.run("What is the weather in SF?");
    expect(result.status).toBe("completed");
    expect(result.text).toBe(
      "The weather in San Francisco, CA is currently:\n- **Temperature:** 68°F\n- **Condition:** Sunny\n\nIt's a nice sunny day!",
    );
    expect(result.steps[0]?.calls[0]?.args).toEqual({ location: "San Francisco, CA", units: "f" });
    const sent = server.requests[1]?.json();
    expect(sent.messages[2]).toEqual(recorded.messages[2]);
    expect(sent.messages[1].content).toEqual([
      {
        type: "tool_use",
        id: "toolu_018acGYLtfR52q9yDbWaEdQZ",
        name: "get_weather",
        input: { location: "San Francisco, CA", units: "f" },
      },
    ]);
  });

  it("gemini: two single-call steps with generated ids, then the answer (test_google_model_iter_stream.yaml)", async () => {
    const interactions = cassette("google/test_google_model_iter_stream.yaml");
    server = await startReplayServer(interactions.map((i) => cassetteAnswer(i, split)));
    const loop = new AgentLoop({
      provider: gemini({
        model: "gemini-2.0-flash",
        baseURL: `${server.url}/v1beta`,
        apiKey: "AIza-test",
      }),
      instructions: "You are a helpful chatbot.",
      tools: [
        tool({
          name: "get_capital",
          description: "Get the capital of a country.",
          input: z.object({ country: z.string() }),
          execute: async () => "Paris",
        }),
        tool({
          name: "get_temperature",
          description: "Get the temperature in a city.",
          input: z.object({ city: z.string() }),
          execute: async () => "30°C",
        }),
      ],
    });
    const result = await loop.run("What is the temperature of the capital of France?");
    expect(result.text).toBe("The temperature in Paris is 30°C.\n");
    expect(result.steps.map((s) => s.calls.map((c) => c.toolName))).toEqual([
      ["get_capital"],
      ["get_temperature"],
      [],
    ]);
    const last = server.requests[2]?.json().contents;
    expect(last.map((c: any) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
    expect(last[2].parts[0].functionResponse).toEqual({
      id: last[1].parts[0].functionCall.id,
      name: "get_capital",
      response: { output: "Paris" },
    });
    expect(
      server.requests[0]?.json().tools[0].functionDeclarations[0].parameters,
    ).not.toHaveProperty("additionalProperties");
  });

  it("openAIResponses: reasoning with encrypted content survives a 4-step run (openai-reasoning-encrypted-content.1.chunks.txt)", async () => {
    const responses: any[][] = [];
    for (const line of chunkLines(
      "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt",
    )) {
      if (line.type === "response.created") responses.push([]);
      responses[responses.length - 1]?.push(line);
    }
    server = await startReplayServer(
      responses.map((r) => ({
        headers: { "content-type": "text/event-stream" },
        body: chunksToSSE(r, "typed-events"),
        ...split,
      })),
    );
    const ops = { add: (a: number, b: number) => a + b, multiply: (a: number, b: number) => a * b };
    const loop = new AgentLoop({
      provider: openAIResponses({
        model: "gpt-5.1-codex-max",
        baseURL: `${server.url}/v1`,
        apiKey: "sk-test",
      }),
      tools: [
        tool({
          name: "calculator",
          description: "A minimal calculator for basic arithmetic. Call it once per step.",
          input: z.object({ a: z.number(), b: z.number(), op: z.enum(["add", "multiply"]) }),
          execute: async ({ a, b, op }) => ops[op](a, b),
        }),
      ],
      settings: { store: false, include: ["reasoning.encrypted_content"] },
    });
    const result = await loop.run("Compute (12 + 7) × 3 × 10 with the calculator.");
    expect(result.text).toBe("The final result is **570**.");
    expect(result.steps.flatMap((s) => s.calls.map((c) => c.result?.output))).toEqual([
      19, 57, 570,
    ]);
    const lastInput = server.requests[3]?.json().input;
    expect(lastInput.map((item: any) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
    ]);
    const done = responses[0]?.find(
      (e) => e.type === "response.output_item.done" && e.item.type === "reasoning",
    ).item;
    expect(lastInput[1]).toMatchObject({ id: done.id, encrypted_content: done.encrypted_content });
  });
});
