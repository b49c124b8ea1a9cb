/**
 * Providers: the same loop on any model API. Each adapter is one function call; pick one with
 * `TOLLGATE_PROVIDER` (openai, responses, anthropic, gemini, ollama). Without it, this example
 * starts a tiny OpenAI-compatible server on 127.0.0.1 and runs the loop over real HTTP against
 * it, so it works offline.
 *
 *   npx tsx examples/providers.ts
 *   TOLLGATE_PROVIDER=anthropic ANTHROPIC_API_KEY=... npx tsx examples/providers.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { AgentLoop, type Provider, type RunResult, tool } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { z } from "zod";

/** One adapter per API; keys come from the usual environment variables when not given. */
export function pickProvider(kind: string, baseURL?: string): Provider {
  switch (kind) {
    case "openai":
      return openAIChat({ model: "gpt-4.1-mini" }); // OPENAI_API_KEY
    case "responses":
      return openAIResponses({ model: "gpt-5-mini", settings: { reasoning: { effort: "low" } } });
    case "anthropic":
      return anthropic({ model: "claude-sonnet-4-5", maxTokens: 1024 }); // ANTHROPIC_API_KEY
    case "gemini":
      return gemini({ model: "gemini-2.5-flash" }); // GEMINI_API_KEY or GOOGLE_API_KEY
    case "ollama":
      return openAIChat({
        name: "ollama",
        model: "llama3.2",
        baseURL: "http://localhost:11434/v1",
      });
    default:
      // Any OpenAI-compatible server: vLLM, llama.cpp, LM Studio, OpenRouter, Groq, xAI...
      return openAIChat({ name: "local", model: "stub-1", baseURL, apiKey: "not-needed" });
  }
}

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
});

export async function main(): Promise<RunResult> {
  const stub = await startStubServer();
  try {
    const provider = pickProvider(process.env.TOLLGATE_PROVIDER ?? "local", stub.url);
    const loop = new AgentLoop({ provider, tools: [getWeather] });
    let streamed = "";
    for await (const event of loop.stream("What's the weather in Oslo?")) {
      if (event.type === "text-delta") streamed += event.text;
      if (event.type === "tool-decision") console.log(`${event.toolName}: ${event.verdict}`);
      if (event.type === "run-finish") {
        console.log(`${provider.name}/${provider.model}: ${streamed}`);
        console.log(`${event.status}; ${stub.requests()} HTTP requests`);
        return event.result;
      }
    }
    throw new Error("the run ended without run-finish");
  } finally {
    stub.close();
  }
}

/** A stand-in for an OpenAI-compatible server: a tool call first, then a streamed answer. */
async function startStubServer() {
  let requests = 0;
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (part) => (body += part));
    request.on("end", () => {
      requests++;
      const hasResult = JSON.parse(body).messages.some((m: { role: string }) => m.role === "tool");
      response.writeHead(200, { "content-type": "text/event-stream" });
      const call = { index: 0, id: "call_1", type: "function" };
      const frames = hasResult
        ? [chunk({ content: "It is 21 °C " }), chunk({ content: "in Oslo." }), chunk({}, "stop")]
        : [
            chunk({ tool_calls: [{ ...call, function: { name: "get_weather", arguments: "" } }] }),
            chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
            chunk({}, "tool_calls"),
          ];
      response.end(`${frames.join("")}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () => server.close(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
