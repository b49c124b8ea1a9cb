/**
 * The AI SDK 7 contender of measurements 1 and 9, in a module of its own: section 9's cold
 * child (user-cold.ts) loads it alone, so a fresh AI SDK process holds the AI SDK and zod and
 * nothing else of the bench.
 */
import { tool as aiTool, generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { type Contender, Counter, expectEqual, type LoopShape, script } from "./harness.js";

const ARGS = '{"city":"Oslo"}';
const ANSWER = "done";
const input = z.object({ city: z.string() });

/**
 * AI SDK 7: `generateText` over a new `MockLanguageModelV4` per run (its array form: one result
 * per call), as its docs show.
 */
export function aiSdkContender(shape: LoopShape, name = "AI SDK 7 generateText"): Contender {
  const counter = new Counter();
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const results = script(
    shape,
    (step, index) => ({
      type: "tool-call" as const,
      toolCallId: `call_${step}_${index}`,
      toolName: "get_weather",
      input: ARGS,
    }),
    { type: "text" as const, text: ANSWER },
  ).map((content, step) => ({
    content,
    finishReason: { unified: step < shape.steps ? "tool-calls" : "stop", raw: undefined },
    usage,
    warnings: [],
  }));
  const tools = {
    get_weather: aiTool({
      description: "Current weather for a city",
      inputSchema: input,
      execute: async ({ city }) => {
        counter.count++;
        return { city, tempC: 21 };
      },
    }),
  };
  return {
    name,
    units: shape.steps,
    async run() {
      const model = new MockLanguageModelV4({ doGenerate: results as never });
      const result = await generateText({
        model,
        tools,
        stopWhen: stepCountIs(shape.steps + 1),
        prompt: "What's the weather in Oslo?",
      });
      expectEqual(`${name}: text`, result.text, ANSWER);
      expectEqual(`${name}: steps`, result.steps.length, shape.steps + 1);
      counter.expect(name, shape.steps * shape.callsPerStep);
    },
  };
}
