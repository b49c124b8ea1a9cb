/**
 * Section 9's tollgate contenders, in a module of their own: the cold child (user-cold.ts)
 * loads this alone, so a fresh tollgate process holds tollgate and zod and nothing else of the
 * bench, as an app that imports tollgate does.
 */
import { AgentLoop } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { type Contender, Counter, expectEqual } from "./harness.js";
import {
  ANSWER,
  GATE,
  PROMPT,
  transcriptProvider,
  weatherResponses,
  weatherTool,
} from "./tollgate-weather.js";

/**
 * tollgate with `scriptedProvider`, or (`bare`) with section 1's plain `Provider` object: a
 * new provider and a new `AgentLoop` per run, the zod tool defined once.
 */
export function tollgateUser(calls: number, bare: boolean, name: string): Contender {
  const counter = new Counter();
  const getWeather = weatherTool(counter);
  const turns: ScriptedTurn[] = [
    ...Array.from({ length: calls }, () => ({
      toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }],
    })),
    { text: ANSWER },
  ];
  const responses = weatherResponses({ steps: calls, callsPerStep: 1 });
  return {
    name,
    units: calls,
    async run() {
      const scripted = bare ? undefined : scriptedProvider(turns);
      const loop = new AgentLoop({
        provider: scripted ?? transcriptProvider(responses),
        tools: [getWeather],
        maxSteps: calls + 1,
        ...GATE,
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
