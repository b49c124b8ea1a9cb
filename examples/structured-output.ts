/**
 * Structured output: the run's final answer as a typed, validated object. The scripted models
 * stand in for real ones: the first calls the final-answer tool ("tool" mode, the default for a
 * provider without native structured output), once with a wrong field, which is fed back; the
 * second answers in JSON text ("native" mode, as the adapters do) while stream() shows the
 * object taking shape.
 *
 *   npx tsx examples/structured-output.ts
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const Weather = z.object({
  city: z.string(),
  celsius: z.number(),
  summary: z.string().describe("One short sentence"),
});

const getWeather = tool({
  name: "get_weather",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: 21, sky: "clear" }),
});

export async function main() {
  // "tool" mode: the model answers by calling final_answer; a wrong answer goes back to it.
  const provider = scriptedProvider([
    { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] },
    { toolCalls: [{ name: "final_answer", args: { city: "Oslo", celsius: "21" } }] },
    {
      toolCalls: [
        { name: "final_answer", args: { city: "Oslo", celsius: 21, summary: "Clear, 21 °C." } },
      ],
    },
  ]);
  const loop = new AgentLoop({ provider, tools: [getWeather], output: Weather });
  const result = await loop.run("What's the weather in Oslo?");
  if (result.status === "completed") {
    console.log(`${result.output.city}: ${result.output.celsius} °C`); // typed from Weather
  }
  const fedBack = result.steps[1]!.calls[0]!;
  console.log(`fed back: ${fedBack.verdict} ${String(fedBack.result?.output)}`);

  // "native" mode (the default where the provider supports it): the answer is JSON text,
  // and stream() yields output-delta events with the object so far.
  const native = scriptedProvider(
    [{ text: '{"city":"Bergen","celsius":14,"summary":"Rain, 14 °C."}' }],
    { stream: true, chunkSize: 12, supportsNativeOutput: true },
  );
  const streaming = new AgentLoop({ provider: native, output: Weather });
  for await (const event of streaming.stream("And in Bergen?")) {
    if (event.type === "output-delta") console.log("so far:", JSON.stringify(event.output));
    if (event.type === "run-finish") console.log("output:", JSON.stringify(event.result.output));
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
