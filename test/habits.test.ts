import { inspect } from "node:util";
import {
  AgentLoop,
  HookError,
  jsonSchema,
  type LoopEvent,
  type LoopEventOf,
  PolicyError,
  ProviderError,
  ResumeError,
  RetryError,
  ToolExecutionError,
  ToolOutputError,
  ToolRetriesExceededError,
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

// An AI SDK or OpenAI Agents SDK tool given as a tool: test/foreign-tools.test.ts (the real libraries).
describe("a plain object or a copy given as a tool", () => {
  const definition = {
    name: "weather",
    description: "Weather",
    input: z.object({ city: z.string() }),
    execute: () => "sunny",
  };

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

  it("a lone plain object as `tools`: says what it is and to give a list", () => {
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

describe("errors speak to the developer", () => {
  /** Advice meant for the model, which a thrown error must not repeat. */
  const MODEL_ADVICE = /call the tool again|send the arguments again|fix them/i;
  const city = tool({
    name: "weather",
    input: jsonSchema({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    }),
    needsApproval: true,
    execute: () => "sunny",
  });
  const twice = (args: unknown) =>
    scriptedProvider([
      { toolCalls: [{ name: "weather", args, id: "c1" }] },
      { toolCalls: [{ name: "weather", args, id: "c2" }] },
    ]);

  it.each([
    [
      "args its schema rejects",
      { city: 1 },
      "the last failure: invalid arguments for tool weather: city: expected string, received number)",
    ],
    [
      "args that are not JSON",
      "{bad",
      "the last failure: invalid JSON in the arguments for tool weather: ",
    ],
  ])(
    "ToolRetriesExceededError after %s names the problem, without the model's advice",
    async (_, args, problem) => {
      const error = await new AgentLoop({ provider: twice(args), tools: [city] })
        .run("go")
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolRetriesExceededError);
      const { message } = error as Error;
      expect(message).toContain(problem);
      expect(message).not.toMatch(MODEL_ADVICE);
      expect(String((error as Error).cause)).not.toMatch(MODEL_ADVICE);
    },
  );

  it("the model itself still reads the advice", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "weather", args: { city: 1 } }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({ provider, tools: [city] }).run("go");
    expect(result.steps[0]!.calls[0]!.result!.output).toMatch(
      /Fix them and call the tool again\.$/,
    );
  });

  it("HookError for rewritten args says what the schema rejects, for the developer", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "weather", args: { city: "Oslo" } }] },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [city],
      preToolCall: [() => ({ args: { town: "Oslo" } })],
    });
    const error = await loop.run("go").catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HookError);
    expect((error as Error).message).toBe(
      "pre-call hook 0 (preToolCall[0]) rewrote the args of weather into args its schema rejects: city: required; town: unknown property; the call did not run",
    );
  });

  it("ResumeError for edited args says what is wrong with the edit, for the developer", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "weather", args: { city: "Oslo" }, id: "c1" }] },
    ]);
    const loop = new AgentLoop({ provider, tools: [city], trustState: true });
    const paused = await loop.run("go");
    const error = await loop
      .resume(paused.state, { c1: { approve: true, args: { city: 7 } } })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toBe(
      "the edited args of call c1 are not valid: city: expected string, received number",
    );
  });

  it.each([
    ["AgentLoop", () => new AgentLoop({ provider: scriptedProvider([]), maxSteps: "5" as never })],
    [
      "run()",
      () => new AgentLoop({ provider: scriptedProvider([]) }).run("go", { maxSteps: "5" as never }),
    ],
  ])('maxSteps: "5" in %s says it got a string', async (where, make) => {
    await expect(async () => make()).rejects.toThrow(
      `${where}: \`maxSteps\` must be a whole number >= 1, got the string "5" (write 5, without quotes)`,
    );
  });

  it.each([
    [
      { maxParallelToolCalls: "8" },
      '`maxParallelToolCalls` must be a whole number >= 1, got the string "8" (write 8, without quotes)',
    ],
    [{ maxRetries: 1.5 }, "`maxRetries` must be a whole number >= 0, got 1.5"],
    [{ maxSteps: "many" }, '`maxSteps` must be a whole number >= 1, got the string "many"'],
    [
      { argsLimits: { maxDepth: "9" } },
      '`argsLimits.maxDepth` must be a whole number >= 1, got the string "9" (write 9, without quotes)',
    ],
  ])("AgentLoop %j says what it got", (options, message) => {
    expect(() => new AgentLoop({ provider: scriptedProvider([]), ...(options as object) })).toThrow(
      `AgentLoop: ${message}`,
    );
  });

  it.each([
    [
      { maxRetries: "2" },
      'maxRetries must be a whole number >= 0, got the string "2" (write 2, without quotes)',
    ],
    [
      { timeoutMs: "100" },
      'timeoutMs must be a positive number of milliseconds, got the string "100" (write 100, without quotes)',
    ],
  ])("tool() %j says what it got", (options, message) => {
    const make = () =>
      tool({ name: "t", input: z.object({}), execute: () => "", ...(options as object) });
    expect(make).toThrow(`tool "t": ${message}`);
  });

  it("resuming a JSON text says to JSON.parse it, and nothing runs", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "weather", args: { city: "Oslo" }, id: "c1" }] },
    ]);
    const loop = new AgentLoop({ provider, tools: [city], trustState: true });
    const paused = await loop.run("go");
    const saved = JSON.stringify(paused.state, null, 2);
    await expect(loop.resume(saved as never, { c1: { approve: true } })).rejects.toThrow(
      new ResumeError(
        "resume() got a JSON text; pass the state itself: loop.resume(JSON.parse(saved), decisions)",
      ),
    );
    // The state was not used up: parsed, it resumes.
    const resumed = await new AgentLoop({
      provider: scriptedProvider([{ text: "done" }]),
      tools: [city],
      trustState: true,
    }).resume(JSON.parse(saved), { c1: { approve: true } });
    expect(resumed.status).toBe("completed");
  });

  it("a logged error shows no undefined fields", async () => {
    const thrown = [
      new ResumeError("r"),
      new PolicyError("p", "prepareStep", undefined),
      new ProviderError("p", { retryable: false, provider: "openai" }),
      new ToolRetriesExceededError("t", 1),
      await new AgentLoop({ provider: twice({ city: 1 }), tools: [city] })
        .run("go")
        .catch((error: unknown) => error),
    ];
    for (const error of thrown) {
      expect(inspect(error)).not.toContain("undefined");
      expect(Object.values(error as object)).not.toContain(undefined);
      expect("cause" in (error as object)).toBe(error === thrown[4]);
    }
    expect(thrown[4]).toHaveProperty("messages", expect.any(Array));
    expect(new PolicyError("p", "prepareStep", "t").toolName).toBe("t");
    expect(new ProviderError("p", { status: 500, retryable: true, provider: "x" }).status).toBe(
      500,
    );
  });
});

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
