import { AgentLoop } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

describe("null is not `not given`", () => {
  const provider = scriptedProvider([]);
  it.each([
    ["maxSteps", { maxSteps: null }],
    ["preToolCall", { preToolCall: null }],
    ["policy", { policy: null }],
    ["toolErrors", { toolErrors: null }],
  ])("AgentLoop refuses %s: null instead of using the default", (key, extra) => {
    expect(() => new AgentLoop({ provider, ...(extra as object) } as never)).toThrow(
      `AgentLoop: \`${key}\` is null; leave it out (or undefined) for the default, or give a value`,
    );
  });

  it("run() and resume() refuse a null option; deps may be null", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "hi" }]) });
    await expect(loop.run("hi", { maxSteps: null } as never)).rejects.toThrow(
      "run() options: `maxSteps` is null",
    );
    await expect(loop.resume({} as never, {}, { signal: null } as never)).rejects.toThrow(
      "resume() options: `signal` is null",
    );
    const result = await loop.run("hi", { deps: null });
    expect(result.status).toBe("completed");
  });
});

describe("settings are checked, not passed on blindly", () => {
  const provider = scriptedProvider([]);
  it.each([
    [{ temprature: 0 }, "settings.temprature is not a setting; did you mean `temperature`?"],
    [{ maxTokens: 50 }, "settings.maxTokens is not a setting; did you mean `maxOutputTokens`?"],
    [{ temperature: "0" }, 'settings.temperature must be a number, got the string "0"'],
    [{ maxOutputTokens: 0 }, "settings.maxOutputTokens must be a whole number above 0, got 0"],
    [{ stopSequences: "END" }, "settings.stopSequences must be an array of strings"],
  ])("AgentLoop refuses %j", (settings, message) => {
    expect(() => new AgentLoop({ provider, settings: settings as never })).toThrow(message);
  });

  it("run() refuses them the same way; provider-specific keys pass as they are", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "ok" }]) });
    await expect(loop.run("hi", { settings: { temprature: 0 } })).rejects.toThrow(
      "run(): settings.temprature is not a setting; did you mean `temperature`?",
    );
    const passing = scriptedProvider([{ text: "ok" }]);
    const settings = { topK: 40, reasoning_effort: "low", max_tokens: 10, stop: ["x"] };
    await new AgentLoop({ provider: passing, settings }).run("hi");
    expect(passing.requests[0]!.settings).toEqual(settings);
  });
});
