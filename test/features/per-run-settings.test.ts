import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echo } from "../support/echo-tool.js";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

describe("per-run instructions and settings", () => {
  const loopFor = (provider: ReturnType<typeof scriptedProvider>, extra: object = {}) =>
    new AgentLoop({
      provider,
      tools: [echo],
      instructions: "loop prompt",
      settings: { temperature: 1, maxOutputTokens: 100 },
      ...extra,
    });

  it("run() given its own: instructions replace the loop's, settings go over the loop's key by key, for that run only", async () => {
    const provider = scriptedProvider([{ text: "a" }, { text: "b" }]);
    const loop = loopFor(provider);
    await loop.run("one", { instructions: "run prompt", settings: { temperature: 0 } });
    await loop.run("two");
    expect(provider.requests.map((request) => [request.system, request.settings])).toEqual([
      ["run prompt", { temperature: 0, maxOutputTokens: 100 }],
      ["loop prompt", { temperature: 1, maxOutputTokens: 100 }],
    ]);
  });

  it("stream() takes them too, for every step of the run", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: { text: "x" } }] },
      { text: "done" },
    ]);
    for await (const _ of loopFor(provider).stream("go", { instructions: "streamed" })) {
      // drain
    }
    expect(provider.requests.map((request) => request.system)).toEqual(["streamed", "streamed"]);
    expect(provider.requests[1]!.settings).toEqual({ temperature: 1, maxOutputTokens: 100 });
  });

  it("a resumed run uses the loop's unless resume() is given its own (a state does not hold them)", async () => {
    const guarded = tool({
      name: "guarded",
      input: z.object({}),
      needsApproval: true,
      execute: () => "ran",
    });
    const turns = () => [
      { toolCalls: [{ name: "guarded", args: {}, id: "g1" }] },
      { text: "done" },
    ];
    const first = scriptedProvider(turns());
    const options = { tools: [guarded], instructions: "loop prompt", trustState: true };
    const paused = await new AgentLoop({ provider: first, ...options }).run("go", {
      instructions: "run prompt",
    });
    expect(paused.status).toBe("needs_approval");
    expect(first.requests[0]!.system).toBe("run prompt");

    const plain = scriptedProvider(turns().slice(1));
    await new AgentLoop({ provider: plain, ...options }).resume(paused.state, {
      g1: { approve: true },
    });
    expect(plain.requests[0]!.system).toBe("loop prompt");

    const own = scriptedProvider(turns().slice(1));
    await new AgentLoop({ provider: own, ...options }).resume(
      paused.state,
      { g1: { approve: true } },
      { instructions: "resume prompt", settings: { seed: 7 } },
    );
    expect(own.requests[0]).toMatchObject({ system: "resume prompt", settings: { seed: 7 } });
  });

  it.each([
    [{ instructions: 42 }, "run(): `instructions` must be a string, got a number"],
    [{ settings: "hot" }, "run(): `settings` must be an object, got a string"],
    [{ settings: [0.5] }, "run(): `settings` must be an object, got an array"],
    [{ system: "x" }, "run() options: unknown option `system`; did you mean `instructions`?"],
    [{ temperature: 0 }, "run() options: unknown option `temperature`; did you mean `settings`?"],
    [{ abortSignal: "x" }, "run() options: unknown option `abortSignal`; did you mean `signal`?"],
    [{ signal: "x" }, "run(): `signal` must be an AbortSignal, got a string"],
    [{ signal: { aborted: false } }, "run(): `signal` must be an AbortSignal, got an object"],
  ])("run() refuses %j", async (options, message) => {
    const loop = loopFor(scriptedProvider([{ text: "never" }]));
    await expect(loop.run("go", options as never)).rejects.toThrow(message);
    await expect(loop.stream("go", options as never).next()).rejects.toThrow(message);
  });

  it("resume() refuses them of the wrong type, before anything runs", async () => {
    const loop = loopFor(scriptedProvider([]), { trustState: true });
    await expect(loop.resume({} as never, {}, { instructions: ["x"] } as never)).rejects.toThrow(
      "resume(): `instructions` must be a string, got an array",
    );
    await expect(loop.resume({} as never, {}, { signal: "x" } as never)).rejects.toThrow(
      "resume(): `signal` must be an AbortSignal, got a string",
    );
  });
});
