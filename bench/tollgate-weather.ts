/**
 * What every tollgate contender of sections 1 and 9 is built from: the `get_weather` tool, the
 * gate of section 1, the script of model answers, and the plain `Provider` that answers from
 * the transcript's length. It imports tollgate and zod alone, so section 9's cold child (through
 * user-tollgate.ts) loads nothing else of the bench.
 */
import { type ModelResponse, type Provider, tool } from "tollgate";
import { z } from "zod";
import { type Counter, type LoopShape, script } from "./harness.js";

/** The final answer of every run. */
export const ANSWER = "done";
/** The prompt of every run. */
export const PROMPT = "What's the weather in Oslo?";

const input = z.object({ city: z.string() });

/** The `get_weather` tool (zod `{ city: string }`); each call counts on `counter`. */
export function weatherTool(counter: Counter) {
  return tool({
    name: "get_weather",
    description: "Current weather for a city",
    input,
    execute: async ({ city }) => {
      counter.count++;
      return { city, tempC: 21 };
    },
  });
}

/** Section 1's gate: 2 pre-call hooks that let every call through, and a policy that allows. */
export const GATE = {
  preToolCall: [
    (call: { name: string }) => (call.name === "rm_rf" ? { block: "not here" } : undefined),
    (call: { step: number }) => (call.step > 10_000 ? { stop: true as const } : undefined),
  ],
  policy: { decideToolCall: () => "ALLOW" as const, endsRun: () => false },
};

/** The model's answers for `shape`: `callsPerStep` calls of `get_weather` a step, then `ANSWER`. */
export function weatherResponses(shape: LoopShape): ModelResponse[] {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  return script(
    shape,
    (step, index) => ({
      type: "tool-call" as const,
      id: `call_${step}_${index}`,
      name: "get_weather",
      args: '{"city":"Oslo"}',
    }),
    { type: "text" as const, text: ANSWER },
  ).map((parts, step) => ({
    parts,
    finishReason: step < shape.steps ? "tool-calls" : "stop",
    usage,
  }));
}

/**
 * A plain `Provider` with only `generate` (the cheapest fair fake: no request recording, the
 * non-streaming path the AI SDK's mock takes), answering step n with `responses[n]`, read from
 * the transcript's length; `onModelCall` sees each step first.
 */
export function transcriptProvider(
  responses: ModelResponse[],
  onModelCall?: (step: number) => void,
): Provider {
  return {
    name: "bench",
    model: "bench",
    generate: async (request) => {
      const step = (request.messages.length - 1) / 2;
      onModelCall?.(step);
      const response = responses[step];
      if (!response) throw new Error(`bench fake: unexpected ${request.messages.length} messages`);
      return response;
    },
  };
}
