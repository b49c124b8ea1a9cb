/**
 * The same recorded provider traffic (test/fixtures/real) replayed by a real HTTP server on
 * 127.0.0.1 to two paths: tollgate's own adapters (`openAIChat`, `anthropic`) and
 * `fromAISDK` over the real `@ai-sdk/openai` (chat) and `@ai-sdk/anthropic` models. Both must
 * read the same answer (parts, finish reason, usage) and, through the whole loop, leave the
 * same transcript. The replay answers in the recording's order; the requests the AI SDK wrote
 * are checked against the recording's requests message by message (the two clients format a
 * body differently, so bodies are not compared byte for byte).
 */
import {
  AgentLoop,
  type Message,
  type Provider,
  type RunResult,
  type ToolSpec,
  tool,
  type Usage,
} from "tollgate";
import { type AISDKLanguageModel, fromAISDK } from "tollgate/ai-sdk";
import { anthropic } from "tollgate/anthropic";
import { openAIChat } from "tollgate/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  cassette,
  cassetteAnswer,
  chunkLines,
  chunksToSSE,
  exchangeAnswer,
  jsonAnswer,
  recording,
  recordingJson,
  runStream,
  sse,
  userRequest,
} from "../providers/support/recordings.js";
import { aiSdkSkipReason, loadProviderPackages } from "../support/ai-sdk-peers.js";
import {
  type ReplayAnswer,
  type ReplayServer,
  startReplayServer,
} from "../support/replay-server.js";

const skipReason = aiSdkSkipReason("test/ai-sdk/replay.test.ts");

const { openaiPackage, anthropicPackage } = await loadProviderPackages(skipReason);

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Kind = "openai" | "anthropic";

/** Both paths for one API, each against its own replay of the same answers. */
async function bothPaths(kind: Kind, model: string, answers: ReplayAnswer[]) {
  const native = await startReplayServer(answers);
  const viaAISDK = await startReplayServer(answers);
  servers.push(native, viaAISDK);
  const options = (server: ReplayServer) => ({
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test-key",
  });
  const nativeProvider: Provider =
    kind === "openai"
      ? openAIChat({ model, ...options(native) })
      : anthropic({ model, ...options(native) });
  const aiSdkModel =
    kind === "openai"
      ? openaiPackage?.createOpenAI(options(viaAISDK)).chat(model)
      : anthropicPackage?.createAnthropic(options(viaAISDK))(model);
  return {
    nativeServer: native,
    viaAISDK,
    nativeProvider,
    aiSdkProvider: fromAISDK(aiSdkModel as AISDKLanguageModel),
  };
}

/**
 * The usage as the AI SDK reports it: `@ai-sdk/openai` counts cached input tokens as 0 when the
 * wire has no `prompt_tokens_details` (tollgate's adapter leaves the count out). Nothing else
 * differs.
 */
const aiSdkUsage = (kind: Kind, usage: Usage): Usage =>
  kind === "openai" ? { cachedInputTokens: 0, ...usage } : usage;

/** A reasoning signature as each path keeps it: the adapter's own, or the AI SDK's metadata. */
const signatureOf = (signature: string | undefined) =>
  signature?.startsWith("{") ? JSON.parse(signature).anthropic?.signature : signature;
/** A response, with reasoning signatures read back to the provider's own. */
const comparable = (parts: readonly unknown[]) =>
  parts.map((part: any) =>
    part.type === "reasoning" && part.signature !== undefined
      ? { ...part, signature: signatureOf(part.signature) }
      : part,
  );

describe.skipIf(skipReason !== "")(
  `native adapters and fromAISDK(@ai-sdk/*) read the same recordings${skipReason}`,
  () => {
    const generateCases: [Kind, string, string][] = [
      ["openai", "gpt-4.1-nano", "openai-chat/openai-text.json"],
      ["openai", "gpt-4o", "openai-chat/test_completions.test_parse_multiple_pydantic_tools.json"],
      ["openai", "gpt-4o", "openai-chat/test_completions.test_parse_pydantic_tool.json"],
      ["openai", "gpt-4o", "openai-chat/test_completions.test_parse_max_tokens_reached.json"],
      ["openai", "gpt-4o", "openai-chat/test_completions.test_parse_pydantic_model_refusal.json"],
      ["anthropic", "claude-haiku-4-5", "anthropic/anthropic-text.json"],
      ["anthropic", "claude-haiku-4-5", "anthropic/anthropic-tool-no-args.json"],
    ];
    it.each(generateCases)("generate, %s: %s", async (kind, model, file) => {
      const { nativeProvider, aiSdkProvider, viaAISDK } = await bothPaths(kind, model, [
        jsonAnswer(recording(file)),
      ]);
      const request = userRequest("go");
      const native = await nativeProvider.generate(request, {});
      const ours = await aiSdkProvider.generate(request, {});
      expect(native.parts.length).toBeGreaterThan(0);
      expect(comparable(ours.parts)).toEqual(comparable(native.parts));
      // Both read a refusal as "content-filter" (the wire says "stop").
      expect(ours.finishReason).toBe(native.finishReason);
      expect(ours.usage).toEqual(aiSdkUsage(kind, native.usage));
      expect(ours.raw).toEqual(recordingJson(file));
      expect(viaAISDK.requests).toHaveLength(1);
    });

    const streamCases: [Kind, string, string][] = [
      ["openai", "gpt-4.1-nano", "openai-chat/openai-text.chunks.txt"],
      ["openai", "gpt-4o", "openai-chat/azure-model-router.1.chunks.txt"],
      ["anthropic", "claude-haiku-4-5", "anthropic/anthropic-text.chunks.txt"],
      ["anthropic", "claude-haiku-4-5", "anthropic/anthropic-tool-no-args.chunks.txt"],
      ["anthropic", "claude-sonnet-4-5", "anthropic/anthropic-clear-thinking.1.chunks.txt"],
    ];
    it.each(streamCases)("stream, %s: %s", async (kind, model, file) => {
      const style = kind === "openai" ? "openai-chat" : "typed-events";
      const answer = sse(chunksToSSE(chunkLines(file), style), { split: "odd" });
      const { nativeProvider, aiSdkProvider } = await bothPaths(kind, model, [answer]);
      const request = userRequest("go");
      const native = await runStream(nativeProvider, request);
      const ours = await runStream(aiSdkProvider, request);
      expect(native.error).toBeUndefined();
      expect(ours.error).toBeUndefined();
      expect(comparable(ours.response.parts)).toEqual(comparable(native.response.parts));
      expect(ours.response.finishReason).toBe(native.response.finishReason);
      expect(ours.response.usage).toEqual(aiSdkUsage(kind, native.response.usage));
    });

    /** Runs one loop per path (the loop streams) and returns both results. */
    async function runBoth(
      kind: Kind,
      model: string,
      answers: ReplayAnswer[],
      loopWith: (provider: Provider) => AgentLoop,
      input: string,
    ) {
      const paths = await bothPaths(kind, model, answers);
      const native = await loopWith(paths.nativeProvider).run(input);
      const ours = await loopWith(paths.aiSdkProvider).run(input);
      return { ...paths, native, ours };
    }

    const sameRun = (kind: Kind, native: RunResult, ours: RunResult) => {
      expect(ours.status).toBe(native.status);
      expect(ours.messages).toEqual(native.messages);
      expect(ours.usage).toEqual(aiSdkUsage(kind, native.usage));
      const calls = (run: RunResult) =>
        run.steps.map((s) => s.calls.map((c) => [c.toolName, c.args, c.verdict, c.result]));
      expect(calls(ours)).toEqual(calls(native));
    };

    it("the loop over openai chat: parallel calls, a second step, a final_result (test_complex_agent_run.yaml)", async () => {
      const interactions = cassette("openai-chat/test_complex_agent_run.yaml");
      const answers = interactions.map((i) => cassetteAnswer(i, { split: "odd", delayMs: 1 }));
      const noArgs = (name: string, output: string) =>
        tool({ name, description: "", input: z.object({}), execute: async () => output });
      const tools = [
        noArgs("get_country", "Mexico"),
        noArgs("get_product_name", "Pydantic AI"),
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
      ];
      const { native, ours, viaAISDK, nativeServer } = await runBoth(
        "openai",
        "gpt-4o",
        answers,
        (provider) =>
          new AgentLoop({
            provider,
            tools,
            policy: { endsRun: ({ call }) => call.name === "final_result" },
          }),
        interactions[0]?.request.parsed_body.messages[0].content,
      );
      expect(ours.status).toBe("ended_by_tool");
      expect(ours.steps.map((s) => s.calls.length)).toEqual([2, 1, 1]);
      sameRun("openai", native, ours);
      // What @ai-sdk/openai sent carries the recording's messages, and the tools tollgate offered.
      expect(viaAISDK.requests).toHaveLength(3);
      for (const [i, interaction] of interactions.entries()) {
        const sent = viaAISDK.requests[i]?.json();
        expect(sent.messages.map(semanticChatMessage), `request ${i}`).toEqual(
          interaction.request.parsed_body.messages.map(semanticChatMessage),
        );
        const offered = (body: any) =>
          body.tools.map((t: any) => [t.function.name, t.function.parameters]);
        expect(offered(sent)).toEqual(offered(nativeServer.requests[i]?.json()));
        expect(sent.stream).toBe(true);
      }
    });

    it("the loop over anthropic: a tool call, its result, the answer (555fb399….json)", async () => {
      const exchanges = recordingJson("anthropic/555fb399-a54c-455b-9ac5-2c9673f18e12.json");
      const answers = exchanges.map((x: any) => exchangeAnswer(x, { split: "odd", delayMs: 1 }));
      const recorded = exchanges[1].request.body;
      const tools = [
        tool({
          name: "get_weather",
          description: "Lookup the weather for a given city in either celsius or fahrenheit",
          input: z.object({ location: z.string(), units: z.enum(["c", "f"]) }),
          execute: async () => recorded.messages[2].content[0].content,
        }),
      ];
      const { native, ours, viaAISDK } = await runBoth(
        "anthropic",
        "claude-haiku-4-5",
        answers,
        (provider) => new AgentLoop({ provider, tools, settings: { maxOutputTokens: 1024 } }),
        "What is the weather in SF?",
      );
      expect(ours.status).toBe("completed");
      expect(ours.text).toContain("68°F");
      sameRun("anthropic", native, ours);
      const sent = viaAISDK.requests[1]?.json();
      expect(sent.messages.map(semanticAnthropicMessage)).toEqual(
        recorded.messages.map(semanticAnthropicMessage),
      );
      expect(sent.max_tokens).toBe(1024);
    });

    it("generate over 10 recorded exchanges of Anthropic's tool runner: same answers, same requests (ToolRunner.json)", async () => {
      const exchanges = recordingJson("anthropic/ToolRunner.json");
      const answers = exchanges.map((x: any) => ({
        status: x.status,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(x.response),
      }));
      const { nativeProvider, aiSdkProvider, nativeServer, viaAISDK } = await bothPaths(
        "anthropic",
        "claude-3-5-sonnet-latest",
        answers,
      );
      for (const [i, exchange] of exchanges.entries()) {
        const recorded = exchange.body;
        // The transcript the recorded request carries, as tollgate holds it.
        const messages: Message[] = recorded.messages.map((m: any): Message => {
          if (m.role === "assistant") {
            return {
              role: "assistant",
              parts: m.content.map((b: any) =>
                b.type === "text"
                  ? { type: "text", text: b.text }
                  : { type: "tool-call", id: b.id, name: b.name, args: JSON.stringify(b.input) },
              ),
            };
          }
          if (typeof m.content === "string") return { role: "user", content: m.content };
          if (m.content[0].type === "text") return { role: "user", content: m.content[0].text };
          return {
            role: "tool",
            results: m.content.map((b: any) => ({
              toolCallId: b.tool_use_id,
              toolName: "test_tool",
              output: b.content,
              isError: false,
            })),
          };
        });
        const tools: ToolSpec[] = (recorded.tools ?? []).map((t: any) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.input_schema,
        }));
        const request = { messages, tools, settings: { maxOutputTokens: recorded.max_tokens } };
        const native = await nativeProvider.generate(request, {});
        const ours = await aiSdkProvider.generate(request, {});
        expect(ours.parts, `response ${i}`).toEqual(native.parts);
        expect(ours.finishReason).toBe(native.finishReason);
        expect(ours.usage).toEqual(native.usage);
        const semantic = (body: any) => body.messages.map(semanticAnthropicMessage);
        expect(semantic(viaAISDK.requests[i]?.json()), `request ${i}`).toEqual(
          semantic(nativeServer.requests[i]?.json()),
        );
      }
    });
  },
);

/** A Chat Completions message as what it says: role, text, tool calls (args parsed), tool result. */
function semanticChatMessage(message: any) {
  return {
    role: message.role,
    content: message.content === null || message.content === "" ? undefined : message.content,
    calls: message.tool_calls?.map((c: any) => [
      c.id,
      c.function.name,
      JSON.parse(c.function.arguments),
    ]),
    result: message.tool_call_id,
  };
}

/** An Anthropic message as what it says: role and each block's kind and content. */
function semanticAnthropicMessage(message: any) {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content;
  return {
    role: message.role,
    blocks: blocks.map((b: any) =>
      b.type === "tool_use"
        ? [b.type, b.id, b.name, b.input]
        : b.type === "tool_result"
          ? [
              b.type,
              b.tool_use_id,
              typeof b.content === "string"
                ? b.content
                : b.content.map((c: any) => c.text).join(""),
            ]
          : [b.type, b.text],
    ),
  };
}
