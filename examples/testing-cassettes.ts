/**
 * Cassettes: record a run against a real model once, replay it offline forever. Here the "real
 * model" is a tiny OpenAI-compatible server on 127.0.0.1, so the example runs offline: it
 * records through the real `openAIChat` adapter, closes the server, then replays the cassette
 * with `noNetwork()` on, and shows what a drifted request looks like.
 *
 *   npx tsx examples/testing-cassettes.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentLoop, type Provider, tool } from "tollgate";
import { openAIChat } from "tollgate/openai";
import { cassette, noNetwork } from "tollgate/testing";
import { z } from "zod";

const getWeather = tool({
  name: "get_weather",
  description: "The weather in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: 21 }),
});
const weatherAgent = (provider: Provider) => new AgentLoop({ provider, tools: [getWeather] });

/** A stand-in for the model's API: a tool call, then an answer (OpenAI Chat Completions, streamed). */
async function standInModel() {
  let turn = 0;
  const server = createServer((req, res) => {
    req.resume().on("end", () => {
      const delta =
        turn++ === 0
          ? {
              tool_calls: [
                {
                  index: 0,
                  id: "call_1",
                  type: "function",
                  function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
                },
              ],
            }
          : { content: "It is 21 °C in Oslo." };
      const chunk = {
        choices: [{ index: 0, delta, finish_reason: delta.content ? "stop" : "tool_calls" }],
        usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
      };
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

export async function main(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-cassettes-"));
  const path = join(dir, "cassettes", "weather.json");
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  try {
    // Live, once: TOLLGATE_CASSETTES=record in a real test; here the mode is given.
    const server = await standInModel();
    const model = openAIChat({
      model: "gpt-4.1-mini",
      baseURL: server.url,
      apiKey: "sk-live-0123456789",
    });
    const live = await weatherAgent(cassette(model, path, { mode: "record" })).run(
      "Weather in Oslo?",
    );
    await server.close();
    say(`recorded: ${live.text}`);
    say(`the cassette holds the key: ${readFileSync(path, "utf8").includes("sk-live-0123456789")}`);

    // Offline, forever: the server is gone and no adapter may send anything.
    const off = noNetwork();
    const provider = cassette(openAIChat({ model: "gpt-4.1-mini" }), path);
    const replayed = await weatherAgent(provider).run("Weather in Oslo?");
    say(`replayed: ${replayed.text}`);

    // The agent changed: the replay fails with what drifted, path by path.
    const drifted = await weatherAgent(cassette(openAIChat({ model: "gpt-4.1-mini" }), path))
      .run("Weather in Bergen?")
      .catch((error: Error) => error.message);
    say(`drift: ${String(drifted).split("\n")[1]?.trim()}`);

    // A real adapter under the guard refuses before sending anything.
    const refused = await weatherAgent(openAIChat({ model: "gpt-4.1-mini", apiKey: "sk-x" }))
      .run("Weather in Oslo?")
      .catch((error: Error) => error.message);
    say(`guarded: ${String(refused).split(",")[0]}`);
    off();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
