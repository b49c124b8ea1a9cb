import { AgentLoop, tool } from "tollgate";
import { anthropic } from "tollgate/anthropic";
import { gemini } from "tollgate/gemini";
import { openAIChat, openAIResponses } from "tollgate/openai";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

// The option types accept `undefined` on every optional key (for exactOptionalPropertyTypes);
// at runtime, `undefined` means "not given": the default applies, nothing is refused.
describe("an optional option set to undefined", () => {
  it("is not given, for the loop, a run and a tool", async () => {
    const echo = tool({
      name: "echo",
      description: undefined,
      input: z.object({ text: z.string() }),
      maxRetries: undefined,
      timeoutMs: undefined,
      needsApproval: undefined,
      sequential: undefined,
      idempotent: undefined,
      execute: ({ text }) => text,
    });
    expect([echo.description, echo.maxRetries, echo.sequential, echo.needsApproval]).toEqual([
      "",
      1,
      false,
      false,
    ]);
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "echo", args: { text: "hi" } }] },
        { text: "done" },
      ]),
      tools: [echo],
      deps: undefined,
      instructions: undefined,
      preToolCall: undefined,
      policy: undefined,
      maxSteps: undefined,
      maxParallelToolCalls: undefined,
      toolErrors: undefined,
      maxRetries: undefined,
      settings: undefined,
      onListenerError: undefined,
      signal: undefined,
      onEvent: undefined,
      store: undefined,
      signingKey: undefined,
      trustState: undefined,
      argsLimits: undefined,
      repeatDenied: undefined,
      stateMigrations: undefined,
    });
    const result = await loop.run("go", {
      signal: undefined,
      deps: undefined,
      maxSteps: undefined,
      runId: undefined,
      instructions: undefined,
      settings: undefined,
    });
    expect(result.status).toBe("completed");
    expect(result.text).toBe("done");
  });

  it("is not given, for every adapter", () => {
    const unset = {
      apiKey: undefined,
      baseURL: undefined,
      headers: undefined,
      fetch: undefined,
      timeoutMs: undefined,
      maxRetries: undefined,
      settings: undefined,
    };
    const providers = [
      openAIChat({ model: "m", ...unset, name: undefined, maxTokensParam: undefined }),
      openAIResponses({ model: "m", ...unset, name: undefined }),
      anthropic({ model: "m", ...unset, maxTokens: undefined }),
      gemini({ model: "m", ...unset }),
    ];
    expect(providers.map((p) => p.name)).toEqual(["openai", "openai", "anthropic", "gemini"]);
  });
});
