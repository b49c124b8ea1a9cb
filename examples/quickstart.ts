/**
 * Quickstart: one tool, a model, a loop. The scripted model stands in for a real one; swap in
 * any `Provider` and the rest stays the same.
 *
 *   npx tsx examples/quickstart.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
});

export async function main(): Promise<RunResult> {
  // The model asks for the tool, then answers with what it returned.
  const provider = scriptedProvider([
    { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] },
    { text: "It is 21 °C in Oslo." },
  ]);
  const loop = new AgentLoop({ provider, tools: [getWeather], instructions: "Be brief." });

  const result = await loop.run("What's the weather in Oslo?");

  console.log(result.text); // It is 21 °C in Oslo.
  for (const call of result.steps.flatMap((step) => step.calls)) {
    console.log(`${call.toolName} ${call.rawArgs}: ${call.verdict} by ${call.by}`);
  }
  console.log(`status: ${result.status}, steps: ${result.steps.length}`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
