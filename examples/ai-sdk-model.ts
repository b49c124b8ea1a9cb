/**
 * Any AI SDK model drives tollgate's loop: `fromAISDK(model)` wraps a language model from any
 * `@ai-sdk/*` provider package (ai@7's `LanguageModelV4`, or V3) as a tollgate `Provider`, and
 * every call the model makes still passes the gate. With a real provider package you write:
 *
 *   import { openai } from "@ai-sdk/openai"; // npm i ai @ai-sdk/openai; key from OPENAI_API_KEY
 *   const loop = weatherAgent(openai("gpt-4o"));
 *
 * This example runs offline on the AI SDK's own `MockLanguageModelV4` (from "ai/test"), scripted
 * to stream a tool call and then an answer. In a project, `npm i ai` provides it; in this
 * repository `npm run bench:install` puts `ai` in bench/node_modules and tsconfig.json's `paths`
 * point "ai/test" there.
 *
 *   npx tsx examples/ai-sdk-model.ts
 */
import { pathToFileURL } from "node:url";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { AgentLoop, type RunResult, tool } from "tollgate";
import { type AISDKLanguageModel, fromAISDK } from "tollgate/ai-sdk";
import { z } from "zod";

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
});

/** The agent on any AI SDK model: fromAISDK(openai("gpt-4o")), fromAISDK(anthropic("claude-sonnet-4-5")), … */
export function weatherAgent(model: AISDKLanguageModel): AgentLoop {
  return new AgentLoop({
    provider: fromAISDK(model),
    tools: [getWeather],
    policy: { decideToolCall: ({ call }) => (call.name === "get_weather" ? "ALLOW" : "DENY") },
  });
}

/** Token counts in the AI SDK's form. */
const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

export async function main(): Promise<RunResult> {
  const model = new MockLanguageModelV4({
    provider: "mock.chat",
    modelId: "mock-1",
    // Each call streams the AI SDK's own stream parts, as `@ai-sdk/openai` would.
    doStream: [
      {
        stream: convertArrayToReadableStream([
          { type: "tool-input-start", id: "call_1", toolName: "get_weather" },
          { type: "tool-input-delta", id: "call_1", delta: '{"city":"Oslo"}' },
          { type: "tool-input-end", id: "call_1" },
          {
            type: "tool-call",
            toolCallId: "call_1",
            toolName: "get_weather",
            input: '{"city":"Oslo"}',
          },
          {
            type: "finish",
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage: usage(40, 12),
          },
        ]),
      },
      {
        stream: convertArrayToReadableStream([
          { type: "text-delta", id: "t1", delta: "It is 21 °C in Oslo." },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(70, 9) },
        ]),
      },
    ],
  });

  const result = await weatherAgent(model).run("What's the weather in Oslo?");

  for (const call of result.steps.flatMap((step) => step.calls)) {
    console.log(`${call.toolName} ${call.rawArgs}: ${call.verdict} by ${call.by}`);
  }
  // The tool's result went back to the model in the AI SDK's prompt format.
  const toolMessage = model.doStreamCalls[1]?.prompt.at(-1);
  console.log(`the model was sent: ${JSON.stringify(toolMessage?.content)}`);
  console.log(`${model.provider}/${model.modelId}: ${result.text}`);
  console.log(
    `usage: ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens`,
  );
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
