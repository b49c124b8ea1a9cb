import { tool as agentsTool } from "@openai/agents-core";
import { tool as aiTool } from "ai";
import {
  AgentLoop,
  type LoopEvent,
  type LoopEventOf,
  RetryError,
  ToolExecutionError,
  ToolOutputError,
  tool,
  toolset,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});
const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Options given as the user would write them, past the types (the habit is what is tested). */
const loopWith = (tools: unknown, provider = scriptedProvider([])) =>
  new AgentLoop({ provider, tools: tools as never });

describe("tools: { name: tool }, the AI SDK's record form", () => {
  it("runs the tools of a record as it runs those of an array", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", args: { city: "Oslo" }, id: "c1" }] },
      { text: "done" },
    ]);
    const result = await loopWith({ get_weather: getWeather, echo }, provider).run("weather?");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.tools).toEqual(["get_weather", "echo"]);
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "sunny in Oslo" });
    expect(provider.requests[0]!.tools.map((spec) => spec.name)).toEqual(["get_weather", "echo"]);
  });

  it("an empty record is a loop without tools", async () => {
    const result = await loopWith({}, scriptedProvider([{ text: "hi" }])).run("hi");
    expect(result.steps[0]!.tools).toEqual([]);
  });

  it("a key that is not its tool's name is refused, saying what to write", () => {
    const make = () => loopWith({ weather: getWeather });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      'AgentLoop: tools.weather holds the tool named "get_weather"; in a { name: tool } record each key is its tool\'s name (the name the model calls): write "get_weather": <that tool>, or tools: [<that tool>]',
    );
  });

  it("a key that is not an identifier is shown quoted", () => {
    expect(() => loopWith({ "get-weather": getWeather })).toThrow(
      /^AgentLoop: tools\["get-weather"\] holds/,
    );
  });

  it("a record entry that is not a tool names its key", () => {
    expect(() => loopWith({ echo, other: { name: "other" } })).toThrow(
      'AgentLoop: tools.other must be a tool built with tool() from "tollgate", got an object without execute or input',
    );
  });

  it("one tool given as `tools` says to give a list", () => {
    expect(() => loopWith(echo)).toThrow(
      "AgentLoop: `tools` is one tool; give a list: tools: [yourTool]",
    );
  });

  it("something else says which forms `tools` takes", () => {
    expect(() => loopWith("echo")).toThrow(
      "AgentLoop: `tools` must be an array of tools, a { name: tool } record or a Toolset, got a string",
    );
  });
});

describe("a tool from another library, or a plain object, given as a tool", () => {
  const aiWeather = aiTool({
    description: "Weather",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => city,
  });
  const agentsWeather = agentsTool({
    name: "weather",
    description: "Weather",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => city,
  });
  const definition = {
    name: "weather",
    description: "Weather",
    input: z.object({ city: z.string() }),
    execute: () => "sunny",
  };

  it("an AI SDK tool in a record: says to write tollgate's tool() with the key as the name", () => {
    expect(() => loopWith({ weather: aiWeather })).toThrow(
      'AgentLoop: tools.weather is an AI SDK tool (ai\'s tool()); tollgate\'s tools have a name and an `input`: write tool({ name: "weather", description, input: <its inputSchema>, execute }) with tool from "tollgate"',
    );
  });

  it("an AI SDK tool in an array: says the same, with a placeholder name", () => {
    expect(() => loopWith([echo, aiWeather])).toThrow(
      /^tools\[1\] is an AI SDK tool .*write tool\(\{ name: "my_tool", description, input: <its inputSchema>, execute \}\)/,
    );
  });

  it("an OpenAI Agents SDK tool: says to give tollgate's tool() the definition", () => {
    expect(() => loopWith([agentsWeather])).toThrow(
      'tools[0] is an OpenAI Agents SDK tool, already built by its tool(); write tool({ name: "weather", description, input: <the zod schema you gave as parameters>, execute }) with tool from "tollgate"',
    );
  });

  it("a plain object with a tool's keys: says to pass it through tool()", () => {
    expect(() => loopWith([definition])).toThrow(
      'tools[0] is a plain object, not a tool; pass it through tool() first: tool({ name: "weather", description, input, execute }) checks it and computes its JSON Schema once',
    );
  });

  it("a spread copy of a tool: says a copy is not a tool", () => {
    expect(() => loopWith([{ ...echo, description: "Echo" }])).toThrow(
      /^tools\[0\] is a copy of a tool \(`\{ \.\.\.tool \}` makes a plain object, not a tool\)/,
    );
  });

  it("the same in toolset()", () => {
    expect(() => toolset([echo, definition as never])).toThrow(
      /^tools\[1\] is a plain object, not a tool; pass it through tool\(\) first/,
    );
  });

  it("a lone foreign tool as `tools`: says what it is and to give a list", () => {
    expect(() => loopWith(aiWeather)).toThrow(
      /^AgentLoop: `tools` is an AI SDK tool .*; and `tools` takes a list: tools: \[yourTool\]$/,
    );
    expect(() => loopWith(definition)).toThrow(
      /^AgentLoop: `tools` is a plain object, not a tool; .*; and `tools` takes a list/,
    );
  });

  it.each([
    ["inputSchema", "input"],
    ["parameters", "input"],
  ])("tool({ %s }) asks: did you mean `%s`?", (key) => {
    const make = () =>
      tool({ name: "weather", [key]: z.object({ city: z.string() }), execute: () => "" } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`tool "weather": unknown option \`${key}\`; did you mean \`input\`?`);
  });
});

describe("per-run instructions and settings", () => {
  const loopFor = (provider: ReturnType<typeof scriptedProvider>, extra: object = {}) =>
    new AgentLoop({
      provider,
      tools: [echo],
      instructions: "loop prompt",
      settings: { temperature: 1, maxOutputTokens: 100 },
      ...extra,
    });

  it("run() given its own replaces the loop's for that run only, whole", async () => {
    const provider = scriptedProvider([{ text: "a" }, { text: "b" }]);
    const loop = loopFor(provider);
    await loop.run("one", { instructions: "run prompt", settings: { temperature: 0 } });
    await loop.run("two");
    expect(provider.requests.map((request) => [request.system, request.settings])).toEqual([
      ["run prompt", { temperature: 0 }],
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
  });
});

describe("a tool-error event shows the developer what execute threw", () => {
  class DbError extends Error {
    readonly code = "ECONNREFUSED";
  }
  const thrown = new DbError("db down");
  const failing = tool({
    name: "lookup",
    input: z.object({}),
    execute: () => {
      throw thrown;
    },
  });
  const callTwice = () =>
    scriptedProvider([{ toolCalls: [{ name: "lookup", args: {}, id: "c1" }] }, { text: "sorry" }]);

  it("carries the error (same class, fields) and its stack; the model still gets its error result", async () => {
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [failing],
      onEvent: (event) => events.push(event),
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "db down", isError: true });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type.startsWith("tool-"))).toEqual([
      "tool-call",
      "tool-decision",
      "tool-error",
      "tool-result",
    ]);
    const event = events.find((e) => e.type === "tool-error") as LoopEventOf<"tool-error">;
    expect(event).toMatchObject({ step: 0, toolCallId: "c1", toolName: "lookup" });
    expect(event.stack).toBe(thrown.stack);
    expect(event.stack).toContain("db down");
    expect(event.error).toBeInstanceOf(DbError);
    expect(event.error).toMatchObject({ message: "db down", code: "ECONNREFUSED" });
    expect((event.error as Error).stack).toBe(thrown.stack);
  });

  it("listeners get a frozen copy: the tool's own error object is left as it was", async () => {
    let seen: unknown;
    const listenerErrors: unknown[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [failing],
      onListenerError: (error) => listenerErrors.push(error),
    });
    loop.on("tool-error", (event) => {
      seen = event.error;
      (event.error as { message: string }).message = "changed";
    });
    const result = await loop.run("go");
    expect(listenerErrors).toEqual([expect.any(TypeError)]);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(seen).not.toBe(thrown);
    expect(Object.isFrozen(thrown)).toBe(false);
    expect(thrown.message).toBe("db down");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "db down" });
  });

  it('comes under toolErrors: "throw" too, before the run rejects with ToolExecutionError', async () => {
    const seen: string[] = [];
    const loop = new AgentLoop({ provider: callTwice(), tools: [failing], toolErrors: "throw" });
    loop.on("tool-error", (event) => seen.push(String((event.error as Error).message)));
    await expect(loop.run("go")).rejects.toThrow(ToolExecutionError);
    expect(seen).toEqual(["db down"]);
  });

  it("a thrown non-Error is passed as it is, without a stack", async () => {
    const events: LoopEventOf<"tool-error">[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [
        tool({
          name: "lookup",
          input: z.object({}),
          execute: () => {
            throw "plain text";
          },
        }),
      ],
    });
    loop.on("tool-error", (event) => events.push(event));
    await loop.run("go");
    expect(events).toHaveLength(1);
    expect(events[0]!.error).toBe("plain text");
    expect("stack" in events[0]!).toBe(false);
  });

  it("a value JSON cannot carry comes as a ToolOutputError naming the problem", async () => {
    const events: LoopEventOf<"tool-error">[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [tool({ name: "lookup", input: z.object({}), execute: () => ({ n: 1n }) })],
    });
    loop.on("tool-error", (event) => events.push(event));
    await loop.run("go");
    expect(events[0]!.error).toBeInstanceOf(ToolOutputError);
    expect((events[0]!.error as Error).message).toMatch(/JSON cannot carry: .*BigInt/);
  });

  it("a RetryError (meant for the model) and a tool that succeeds give none", async () => {
    const types: string[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "picky", args: {} },
            { name: "echo", args: { text: "a" } },
          ],
        },
        { text: "ok" },
      ]),
      tools: [
        echo,
        tool({
          name: "picky",
          input: z.object({}),
          maxRetries: 3,
          execute: () => {
            throw new RetryError("give a city");
          },
        }),
      ],
      onEvent: (event) => types.push(event.type),
    });
    await loop.run("go");
    expect(types).not.toContain("tool-error");
    expect(types.filter((type) => type === "tool-result")).toHaveLength(2);
  });
});
