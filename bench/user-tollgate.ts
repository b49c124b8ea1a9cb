/**
 * Section 9's tollgate contenders, in a module of their own: the cold child (user-cold.ts)
 * loads this alone, so a fresh tollgate process holds tollgate and zod and nothing else of the
 * bench, as an app that imports tollgate does.
 */
import { AgentLoop, type ModelResponse, type Provider, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { z } from "zod";
import { type Contender, Counter, expectEqual } from "./harness.js";

const ANSWER = "done";
const PROMPT = "What's the weather in Oslo?";
const input = z.object({ city: z.string() });

/** tollgate's gate of section 1: 2 pre-call hooks and a policy. */
const gate = {
  preToolCall: [
    (call: { name: string }) => (call.name === "rm_rf" ? { block: "not here" } : undefined),
    (call: { step: number }) => (call.step > 10_000 ? { stop: true as const } : undefined),
  ],
  policy: { decideToolCall: () => "ALLOW" as const, endsRun: () => false },
};

function tollgateTool(counter: Counter) {
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

/**
 * tollgate with `scriptedProvider`, or (`bare`) with section 1's plain `Provider` object: a
 * new provider and a new `AgentLoop` per run, the zod tool defined once.
 */
export function tollgateUser(calls: number, bare: boolean, name: string): Contender {
  const counter = new Counter();
  const getWeather = tollgateTool(counter);
  const turns: ScriptedTurn[] = [
    ...Array.from({ length: calls }, () => ({
      toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }],
    })),
    { text: ANSWER },
  ];
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const responses: ModelResponse[] = Array.from({ length: calls + 1 }, (_, step) =>
    step < calls
      ? {
          parts: [
            {
              type: "tool-call",
              id: `call_${step}_0`,
              name: "get_weather",
              args: '{"city":"Oslo"}',
            },
          ],
          finishReason: "tool-calls",
          usage,
        }
      : { parts: [{ type: "text", text: ANSWER }], finishReason: "stop", usage },
  );
  const bareProvider = (): Provider => ({
    name: "bench",
    model: "bench",
    generate: async (request) => {
      const response = responses[(request.messages.length - 1) / 2];
      if (!response) throw new Error(`bare fake: unexpected ${request.messages.length} messages`);
      return response;
    },
  });
  return {
    name,
    units: calls,
    async run() {
      const scripted = bare ? undefined : scriptedProvider(turns);
      const loop = new AgentLoop({
        provider: scripted ?? bareProvider(),
        tools: [getWeather],
        maxSteps: calls + 1,
        ...gate,
      });
      const result = await loop.run(PROMPT);
      scripted?.assertComplete();
      expectEqual(`${name}: status`, result.status, "completed");
      expectEqual(`${name}: text`, result.text, ANSWER);
      expectEqual(`${name}: steps`, result.steps.length, calls + 1);
      counter.expect(name, calls);
    },
  };
}
