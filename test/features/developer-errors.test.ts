import { inspect } from "node:util";
import {
  AgentLoop,
  HookError,
  jsonSchema,
  PolicyError,
  ProviderError,
  ResumeError,
  ToolRetriesExceededError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

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
