import fc from "fast-check";
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type Message,
  memoryRunStore,
  ResumeError,
  type RunResult,
  type RunState,
  tool,
  type UsageLimits,
} from "tollgate";
import { functionProvider, type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { runs } from "../support/runs.js";

/**
 * Usage limits (DESIGN §11): `limits: { modelCalls, toolCalls, inputTokens, outputTokens,
 * totalTokens }` on the loop and per run. A limit stops the model call or the tool execution
 * that would go past it, and the run ends with status "limit_reached" and `limit`.
 */

const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));

/** Tools that log each execution: `work` runs at once, `send` needs approval, `slow` is sequential. */
function agent(turns: readonly ScriptedTurn[], options: Partial<AgentLoopOptions> = {}) {
  const ran: string[] = [];
  const work = tool({
    name: "work",
    input: z.object({ n: z.number() }),
    execute: ({ n }) => {
      ran.push(`work ${n}`);
      return `worked ${n}`;
    },
  });
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      ran.push(`send ${to}`);
      return `sent to ${to}`;
    },
  });
  const slow = tool({
    name: "slow",
    input: z.object({ n: z.number() }),
    sequential: true,
    execute: ({ n }) => {
      ran.push(`slow ${n}`);
      return `slow ${n}`;
    },
  });
  const provider = scriptedProvider(turns);
  const events: LoopEvent[] = [];
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [work, send, slow],
      trustState: true,
      onEvent: (event) => events.push(event),
      ...options,
      ...extra,
    });
  return { loop: make(), make, provider, ran, events };
}

const work = (...ns: number[]) => ({
  toolCalls: ns.map((n) => ({ name: "work", args: { n }, id: `w${n}` })),
});

/** Every tool call in `messages` has exactly one result, in the tool message right after it. */
function expectOneResultPerCall(messages: readonly Message[]) {
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
    if (ids.length === 0) return;
    const next = messages[index + 1];
    expect(next?.role, `the calls of message ${index} have their results`).toBe("tool");
    if (next?.role !== "tool") return;
    expect(next.results.map((result) => result.toolCallId)).toEqual(ids);
  });
  const results = messages.flatMap((message) =>
    message.role === "tool" ? message.results.map((result) => result.toolCallId) : [],
  );
  expect(new Set(results).size, "no call has two results").toBe(results.length);
}

const resultOf = (result: RunResult, id: string) =>
  result.messages
    .flatMap((message) => (message.role === "tool" ? message.results : []))
    .find((r) => r.toolCallId === id);

describe("limits are checked fail-closed", () => {
  const provider = scriptedProvider([]);
  const make = (limits: unknown) => () => new AgentLoop({ provider, limits: limits as never });

  it("accepts each limit at its minimum (toolCalls may be 0: no tool runs)", () => {
    expect(
      make({ modelCalls: 1, toolCalls: 0, inputTokens: 1, outputTokens: 1, totalTokens: 1 }),
    ).not.toThrow();
    expect(make({})).not.toThrow();
    expect(make(undefined)).not.toThrow();
    expect(make({ toolCalls: undefined })).not.toThrow();
  });

  it.each([
    [{ toolCall: 3 }, /unknown option `toolCall`; did you mean `toolCalls`\?/],
    [{ maxToolCalls: 3 }, /unknown option `maxToolCalls`; did you mean `toolCalls`\?/],
    [{ request_limit: 3 }, /did you mean `modelCalls`\?/],
    [{ totalTokenz: 3 }, /did you mean `totalTokens`\?/],
    [{ toolCalls: null }, /`toolCalls` is null/],
    [{ modelCalls: 0 }, /`limits\.modelCalls` must be a whole number >= 1, got 0/],
    [{ inputTokens: 0 }, /`limits\.inputTokens` must be a whole number >= 1, got 0/],
    [{ outputTokens: 0 }, /`limits\.outputTokens` must be a whole number >= 1/],
    [{ totalTokens: 0 }, /`limits\.totalTokens` must be a whole number >= 1/],
    [{ toolCalls: -1 }, /`limits\.toolCalls` must be a whole number >= 0, got -1/],
    [{ toolCalls: 1.5 }, /`limits\.toolCalls` must be a whole number >= 0, got 1\.5/],
    [{ toolCalls: Number.POSITIVE_INFINITY }, /got Infinity/],
    [{ toolCalls: Number.NaN }, /got NaN/],
    [{ modelCalls: "3" }, /got the string "3" \(write 3, without quotes\)/],
    [5, /AgentLoop limits: expected an options object, got a number/],
    [[3], /expected an options object, got an array/],
  ])("refuses %j", (limits, message) => {
    expect(make(limits)).toThrow(TypeError);
    expect(make(limits)).toThrow(message);
  });

  it("refuses limits: null on the loop and in run()", async () => {
    expect(make(null)).toThrow(/`limits` is null/);
    const loop = new AgentLoop({ provider });
    await expect(loop.run("go", { limits: null as never })).rejects.toThrow(/`limits` is null/);
  });

  it("misspelt as a loop or run option, it is named", async () => {
    expect(() => new AgentLoop({ provider, limit: {} } as never)).toThrow(
      /unknown option `limit`; did you mean `limits`\?/,
    );
    expect(() => new AgentLoop({ provider, usageLimits: {} } as never)).toThrow(
      /did you mean `limits`\?/,
    );
    const loop = new AgentLoop({ provider });
    await expect(loop.run("go", { usageLimits: {} } as never)).rejects.toThrow(
      /did you mean `limits`\?/,
    );
  });

  it("run() and stream() check the run's limits before anything runs", async () => {
    const { loop, provider: scripted } = agent([{ text: "never" }]);
    await expect(loop.run("go", { limits: { toolCals: 1 } as never })).rejects.toThrow(
      /run\(\) limits: unknown option `toolCals`; did you mean `toolCalls`\?/,
    );
    await expect(loop.run("go", { limits: { modelCalls: 0 } })).rejects.toThrow(
      /run\(\): `limits\.modelCalls` must be a whole number >= 1/,
    );
    const events = loop.stream("go", { limits: { totalTokens: -5 } });
    await expect(events.next()).rejects.toThrow(/`limits\.totalTokens` must be a whole number/);
    expect(scripted.requests).toHaveLength(0);
  });

  it("resume() takes no limits: the run keeps those it started with", async () => {
    const { loop } = agent([
      { toolCalls: [{ name: "send", args: { to: "ana" }, id: "s1" }] },
      { text: "sent" },
    ]);
    const paused = await loop.run("go", { limits: { toolCalls: 3 } });
    expect(paused.status).toBe("needs_approval");
    await expect(
      loop.resume(paused.state, { s1: { approve: true } }, { limits: {} } as never),
    ).rejects.toThrow(/a resumed run keeps the limits it started with/);
    // The refusal did not use the state up.
    const resumed = await loop.resume(paused.state, { s1: { approve: true } }, {});
    expect(resumed.status).toBe("completed");
  });

  it("types: limits in the options, limit on the limit_reached result", () => {
    expectTypeOf<AgentLoopOptions["limits"]>().toEqualTypeOf<UsageLimits | undefined>();
    const result = {} as RunResult;
    if (result.status === "limit_reached") {
      expectTypeOf(result.limit.name).toEqualTypeOf<
        "modelCalls" | "toolCalls" | "inputTokens" | "outputTokens" | "totalTokens"
      >();
      expectTypeOf(result.limit.used).toEqualTypeOf<number>();
    } else {
      expectTypeOf(result.limit).toEqualTypeOf<undefined>();
    }
  });
});

describe("each limit", () => {
  it("modelCalls: no model call past it; the steps' calls ran", async () => {
    const { loop, provider, ran } = agent([work(1), work(2), work(3)], {
      limits: { modelCalls: 2 },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("limit_reached");
    expect(result.limit).toEqual({ name: "modelCalls", value: 2, used: 2 });
    expect(provider.requests).toHaveLength(2);
    expect(ran).toEqual(["work 1", "work 2"]);
    expect(result.steps).toHaveLength(2);
    expect(result.state.status).toBe("limit_reached");
    expect(result.state.callCounts).toEqual({ modelCalls: 2, toolCalls: 2 });
    expectOneResultPerCall(result.messages);
  });

  it("toolCalls: the call that would go past it does not run, and the run ends with its step", async () => {
    const { loop, provider, ran } = agent([work(1), work(2), { text: "never" }], {
      limits: { toolCalls: 1 },
    });
    const result = await loop.run("go");
    expect(result).toMatchObject({
      status: "limit_reached",
      limit: { name: "toolCalls", value: 1, used: 1 },
    });
    expect(ran).toEqual(["work 1"]);
    expect(provider.requests).toHaveLength(2); // no model call after the step the limit stopped
    expect(resultOf(result, "w2")).toEqual({
      toolCallId: "w2",
      toolName: "work",
      output: "not run: limit reached (toolCalls 1)",
      isError: true,
    });
    expect(result.steps[1]!.calls[0]).toMatchObject({ verdict: "allow", by: "default" });
    expectOneResultPerCall(result.messages);
  });

  it("toolCalls: using exactly the limit is not reaching past it; the model may still answer", async () => {
    const { loop, ran } = agent([work(1, 2), { text: "done" }], { limits: { toolCalls: 2 } });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("done");
    expect(ran).toEqual(["work 1", "work 2"]);
    expect(result.state.callCounts).toEqual({ modelCalls: 2, toolCalls: 2 });
  });

  it("toolCalls: 0 runs no tool, and a text answer completes", async () => {
    const none = agent([work(1)], { limits: { toolCalls: 0 } });
    const stopped = await none.loop.run("go");
    expect(stopped.limit).toEqual({ name: "toolCalls", value: 0, used: 0 });
    expect(none.ran).toEqual([]);
    const talk = agent([{ text: "hi" }], { limits: { toolCalls: 0 } });
    expect((await talk.loop.run("go")).status).toBe("completed");
  });

  it.each([
    ["inputTokens", { inputTokens: 100 }, 120],
    ["outputTokens", { outputTokens: 15 }, 20],
    ["totalTokens", { totalTokens: 140 }, 140],
  ] as const)(
    "%s: no model call once the run's count has reached it",
    async (name, limits, used) => {
      const usage = { inputTokens: 60, outputTokens: 10 }; // total 70 per call
      const { loop, provider, ran } = agent(
        [
          { ...work(1), usage },
          { ...work(2), usage },
          { ...work(3), usage },
        ],
        { limits },
      );
      const result = await loop.run("go");
      expect(result.status).toBe("limit_reached");
      expect(result.limit).toEqual({ name, value: limits[name as keyof typeof limits], used });
      expect(provider.requests).toHaveLength(2);
      expect(ran).toEqual(["work 1", "work 2"]); // the step's calls ran; the next model call did not
      expect(result.usage[name]).toBe(used);
      expectOneResultPerCall(result.messages);
    },
  );

  it("tokens: below the limit the next call is made", async () => {
    const usage = { inputTokens: 60, outputTokens: 10 };
    const { loop, provider } = agent(
      [
        { ...work(1), usage },
        { text: "done", usage },
      ],
      {
        limits: { inputTokens: 61, totalTokens: 71, outputTokens: 11 },
      },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(provider.requests).toHaveLength(2);
  });

  it("limits are checked in their order: modelCalls before the token limits", async () => {
    const usage = { inputTokens: 50, outputTokens: 50 };
    const { loop } = agent([{ ...work(1), usage }], {
      limits: { totalTokens: 100, modelCalls: 1, inputTokens: 10 },
    });
    expect((await loop.run("go")).limit?.name).toBe("modelCalls");
  });
});

describe("limits per run, over the loop's", () => {
  it("a run's limit replaces the loop's for that key; the loop's others stay", async () => {
    const turns = [work(1), work(2), work(3), work(4)];
    const { loop, provider, ran } = agent(turns, { limits: { modelCalls: 1, toolCalls: 2 } });
    const result = await loop.run("go", { limits: { modelCalls: 10 } });
    expect(result.limit).toEqual({ name: "toolCalls", value: 2, used: 2 });
    expect(ran).toEqual(["work 1", "work 2"]);
    expect(provider.requests).toHaveLength(3);
    expect(result.state.limits).toEqual({ modelCalls: 10, toolCalls: 2 });
  });

  it("a key left undefined in the run's limits keeps the loop's", async () => {
    const { loop } = agent([work(1), work(2)], { limits: { modelCalls: 1 } });
    const result = await loop.run("go", { limits: { modelCalls: undefined, toolCalls: 5 } });
    expect(result.limit).toEqual({ name: "modelCalls", value: 1, used: 1 });
    expect(result.state.limits).toEqual({ modelCalls: 1, toolCalls: 5 });
  });

  it("a run may have limits when the loop has none, and other runs of the loop do not", async () => {
    const { loop } = agent([work(1), work(2), work(3), { text: "done" }]);
    expect((await loop.run("go", { limits: { modelCalls: 1 } })).status).toBe("limit_reached");
    expect((await loop.run("go")).status).toBe("completed"); // the remaining three turns
  });
});

describe("maxSteps stays as it is", () => {
  it("fewer steps than modelCalls: max_steps", async () => {
    const { loop } = agent([work(1), work(2), work(3)], { maxSteps: 2, limits: { modelCalls: 5 } });
    expect((await loop.run("go")).status).toBe("max_steps");
  });

  it("both stop the same model call: max_steps", async () => {
    const { loop } = agent([work(1), work(2), work(3)], { maxSteps: 2, limits: { modelCalls: 2 } });
    expect((await loop.run("go")).status).toBe("max_steps");
  });

  it("fewer modelCalls than steps: limit_reached", async () => {
    const { loop } = agent([work(1), work(2), work(3)], { maxSteps: 3, limits: { modelCalls: 2 } });
    expect((await loop.run("go")).status).toBe("limit_reached");
  });
});

describe("a limit only stops calls; it never lets one run", () => {
  it("calls the gate refused keep their refusal and do not count", async () => {
    const ran: string[] = [];
    const work = tool({
      name: "work",
      input: z.object({ n: z.number() }),
      execute: ({ n }) => {
        ran.push(`work ${n}`);
        return "ok";
      },
    });
    const provider = scriptedProvider([work5(), work5(), { text: "done" }]);
    function work5() {
      return { toolCalls: [1, 2, 3, 4, 5].map((n) => ({ name: "work", args: { n } })) };
    }
    const loop = new AgentLoop({
      provider,
      tools: [work],
      limits: { toolCalls: 4 },
      preToolCall: [
        ({ args }) => {
          const { n } = args as { n: number };
          if (n === 2) return { block: "no 2" };
          if (n === 3) return { result: "three, from a hook" };
          return undefined;
        },
      ],
      policy: {
        decideToolCall: ({ call }) => ((call.args as { n: number }).n === 4 ? "DENY" : undefined),
      },
    });
    const result = await loop.run("go");
    // Step 0: 1 and 5 ran (2 counted); step 1: 1 and 5 ran (4); the model then answered.
    expect(ran).toEqual(["work 1", "work 5", "work 1", "work 5"]);
    expect(result.status).toBe("completed");
    const outputs = result.steps[0]!.calls.map((call) => [call.verdict, call.result?.output]);
    expect(outputs).toEqual([
      ["allow", "ok"],
      ["block", "no 2"],
      ["result", "three, from a hook"],
      ["deny", "the call to work was denied"],
      ["allow", "ok"],
    ]);
  });

  it("a refused call after the limit keeps its refusal; only allowed calls get 'not run'", async () => {
    const { loop, ran } = agent(
      [
        {
          toolCalls: [
            { name: "work", args: { n: 1 }, id: "a" },
            { name: "work", args: { n: "x" }, id: "b" }, // invalid
            { name: "work", args: { n: 2 }, id: "c" },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    );
    const result = await loop.run("go");
    expect(ran).toEqual(["work 1"]);
    expect(result.steps[0]!.calls.map((call) => call.verdict)).toEqual([
      "allow",
      "invalid",
      "allow",
    ]);
    expect(resultOf(result, "b")?.output).toMatch(/invalid arguments for tool work/);
    expect(resultOf(result, "c")?.output).toBe("not run: limit reached (toolCalls 1)");
  });

  it("calls waiting for approval when no tool may run any more are not run; the run does not pause", async () => {
    const { loop, ran } = agent(
      [
        {
          toolCalls: [
            { name: "work", args: { n: 1 }, id: "a" },
            { name: "send", args: { to: "ana" }, id: "s" },
            { name: "work", args: { n: 2 }, id: "b" },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("limit_reached");
    expect(result.pending).toBeUndefined();
    expect(result.state.pending).toBeUndefined();
    expect(ran).toEqual(["work 1"]);
    expect(resultOf(result, "s")?.output).toBe("not run: limit reached (toolCalls 1)");
    expect(resultOf(result, "b")?.output).toBe("not run: limit reached (toolCalls 1)");
    expectOneResultPerCall(result.messages);
  });

  it("a call waiting for approval after the step used the last tool call is not run either", async () => {
    const { loop, ran } = agent(
      [
        {
          toolCalls: [
            { name: "work", args: { n: 1 }, id: "a" },
            { name: "send", args: { to: "ana" }, id: "s" },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("limit_reached");
    expect(result.limit).toEqual({ name: "toolCalls", value: 1, used: 1 });
    expect(ran).toEqual(["work 1"]);
    expect(resultOf(result, "s")?.output).toBe("not run: limit reached (toolCalls 1)");
    expect(result.steps[0]!.calls[1]).toMatchObject({ verdict: "needs-approval" });
  });

  it("a call waiting for approval while tools may still run pauses the run as before", async () => {
    const { loop } = agent([{ toolCalls: [{ name: "send", args: { to: "ana" }, id: "s" }] }], {
      limits: { toolCalls: 1 },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("needs_approval");
    expect(result.state.callCounts).toEqual({ modelCalls: 1, toolCalls: 0 });
  });

  it("a finished limit_reached state does not resume", async () => {
    const { loop } = agent([work(1)], { limits: { toolCalls: 0 } });
    const result = await loop.run("go");
    await expect(loop.resume(result.state, {})).rejects.toThrow(
      /nothing to resume: run .* ended with status "limit_reached"/,
    );
  });
});

describe("structured output in tool mode", () => {
  const answer = z.object({ summary: z.string() });

  it("the final-answer tool is the model's answer, not a tool execution: toolCalls neither counts nor stops it", async () => {
    const { loop, ran } = agent(
      [
        work(1),
        {
          toolCalls: [
            { name: "work", args: { n: 2 }, id: "w2" },
            { name: "final_answer", args: { summary: "done" }, id: "f" },
          ],
        },
      ],
      { limits: { toolCalls: 1 }, output: { schema: answer, mode: "tool" } },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ summary: "done" });
    expect(ran).toEqual(["work 1"]);
    expect(resultOf(result, "w2")?.output).toBe("not run: limit reached (toolCalls 1)");
    expect(result.state.callCounts).toEqual({ modelCalls: 2, toolCalls: 1 });
    expectOneResultPerCall(result.messages);
  });

  it("toolCalls: 0 still lets the model answer through the final-answer tool", async () => {
    const { loop } = agent([{ toolCalls: [{ name: "final_answer", args: { summary: "ok" } }] }], {
      limits: { toolCalls: 0 },
      output: { schema: answer, mode: "tool" },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ summary: "ok" });
  });
});

describe("parallel calls", () => {
  it("a limit in a step of parallel calls: the first calls run, the rest get 'not run', each call one result in call order", async () => {
    const ids = [1, 2, 3, 4, 5];
    const { loop, ran, events } = agent([work(...ids)], {
      limits: { toolCalls: 2 },
      maxParallelToolCalls: 8,
    });
    const result = await loop.run("go");
    expect(result.limit).toEqual({ name: "toolCalls", value: 2, used: 2 });
    expect(ran).toEqual(["work 1", "work 2"]);
    const tool = result.messages.at(-1)!;
    expect(tool.role).toBe("tool");
    if (tool.role !== "tool") return;
    expect(tool.results.map((r) => [r.toolCallId, r.output])).toEqual([
      ["w1", "worked 1"],
      ["w2", "worked 2"],
      ["w3", "not run: limit reached (toolCalls 2)"],
      ["w4", "not run: limit reached (toolCalls 2)"],
      ["w5", "not run: limit reached (toolCalls 2)"],
    ]);
    expectOneResultPerCall(result.messages);
    for (const type of ["tool-call", "tool-decision", "tool-result"] as const) {
      const seen = events.flatMap((event) => (event.type === type ? [event.toolCallId] : []));
      expect(seen.sort(), `one ${type} per call`).toEqual(ids.map((n) => `w${n}`));
    }
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: "run-finish", status: "limit_reached" });
  });

  it("a sequential call between parallel ones is stopped like the others", async () => {
    const { loop, ran } = agent(
      [
        {
          toolCalls: [
            { name: "work", args: { n: 1 }, id: "a" },
            { name: "slow", args: { n: 2 }, id: "b" },
            { name: "work", args: { n: 3 }, id: "c" },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    );
    const result = await loop.run("go");
    expect(ran).toEqual(["work 1"]);
    expect(result.steps[0]!.calls.map((call) => call.result?.output)).toEqual([
      "worked 1",
      "not run: limit reached (toolCalls 1)",
      "not run: limit reached (toolCalls 1)",
    ]);
  });
});

describe("pause and resume keep counting", () => {
  const turns = [
    {
      toolCalls: [
        { name: "work", args: { n: 1 }, id: "w1" },
        { name: "send", args: { to: "ana" }, id: "s1" },
      ],
    },
    work(2),
    work(3),
  ];

  it("toolCalls: the count carries through a JSON round trip into another loop", async () => {
    const first = agent(turns, { limits: { toolCalls: 3 } });
    const paused = await first.loop.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(paused.state.callCounts).toEqual({ modelCalls: 1, toolCalls: 1 });
    // Another process: a new loop without limits, the state as JSON.
    const second = agent(turns.slice(1));
    const resumed = await second.loop.resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(second.ran).toEqual(["send ana", "work 2"]);
    expect(resumed.limit).toEqual({ name: "toolCalls", value: 3, used: 3 });
    expect(resumeResult(resumed, "w3")).toBe("not run: limit reached (toolCalls 3)");
    expectOneResultPerCall(resumed.messages);
  });

  it("modelCalls and tokens carry over too", async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const withUsage = turns.map((turn) => ({ ...turn, usage }));
    const first = agent(withUsage, { limits: { modelCalls: 2 } });
    const paused = await first.loop.run("go");
    const second = agent(withUsage.slice(1));
    const resumed = await second.loop.resume(roundTrip(paused.state), { s1: { approve: false } });
    expect(resumed.limit).toEqual({ name: "modelCalls", value: 2, used: 2 });
    expect(second.provider.requests).toHaveLength(1);

    const tokens = agent(withUsage, { limits: { totalTokens: 30 } });
    const pausedT = await tokens.loop.run("go");
    const again = agent(withUsage.slice(1));
    const done = await again.loop.resume(roundTrip(pausedT.state), { s1: { approve: true } });
    expect(done.limit).toEqual({ name: "totalTokens", value: 30, used: 30 });
    expect(again.provider.requests).toHaveLength(1);
  });

  it("an approved call that would go past toolCalls is not run on resume", async () => {
    const first = agent(turns, { limits: { toolCalls: 1 } });
    const paused = await first.loop.run("go", { limits: { toolCalls: 2 } });
    expect(paused.status).toBe("needs_approval");
    // The state holds toolCalls 2 and 1 used; a loop with toolCalls 1 resumes it with 2.
    const second = agent([work(9)], { limits: { toolCalls: 1 } });
    const resumed = await second.loop.resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(second.ran).toEqual(["send ana", ...[]]);
    expect(resumed.limit).toEqual({ name: "toolCalls", value: 2, used: 2 });
  });

  it("a limit of the loop's that the state lacks applies to the resumed run", async () => {
    const first = agent(turns);
    const paused = await first.loop.run("go");
    const second = agent(turns.slice(1), { limits: { modelCalls: 2 } });
    const resumed = await second.loop.resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(resumed.limit).toEqual({ name: "modelCalls", value: 2, used: 2 });
    expect(resumed.state.limits).toEqual({ modelCalls: 2 });
  });

  it("a state written before limits existed (no limits, no callCounts) still resumes, counting what it ran", async () => {
    const first = agent(turns);
    const paused = await first.loop.run("go");
    const old = roundTrip(paused.state);
    delete old.limits;
    delete old.callCounts;
    expect(old.version).toBe(3);
    const second = agent(turns.slice(1), { limits: { toolCalls: 3, modelCalls: 5 } });
    const resumed = await second.loop.resume(old, { s1: { approve: true } });
    expect(second.ran).toEqual(["send ana", "work 2"]);
    expect(resumed.limit).toEqual({ name: "toolCalls", value: 3, used: 3 });
    expect(resumed.state.callCounts).toEqual({ modelCalls: 3, toolCalls: 3 });
  });

  it("with a RunStore: resumed by run id, the store's copy keeps counting", async () => {
    const store = memoryRunStore();
    const first = agent(turns, { limits: { toolCalls: 2 }, store, trustState: false });
    const paused = await first.loop.run("go", { runId: "run-7" });
    expect(paused.status).toBe("needs_approval");
    const second = agent(turns.slice(1), { store, trustState: false });
    const resumed = await second.loop.resume("run-7", { s1: { approve: true } });
    expect(second.ran).toEqual(["send ana"]);
    expect(resumed.limit).toEqual({ name: "toolCalls", value: 2, used: 2 });
    expect((await store.get("run-7"))?.callCounts).toEqual({ modelCalls: 2, toolCalls: 2 });
  });

  it("with a RunStore: a tool's checkpoint counts it before it starts, so a crash cannot give it back", async () => {
    const store = memoryRunStore();
    const seen: unknown[] = [];
    const probe = tool({
      name: "probe",
      input: z.object({}),
      execute: async () => {
        seen.push((await store.get("run-8"))?.callCounts);
        return "ok";
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "probe" }, { name: "probe" }] },
        { text: "done" },
      ]),
      tools: [probe],
      store,
      maxParallelToolCalls: 1,
    });
    await loop.run("go", { runId: "run-8" });
    expect(seen).toEqual([
      { modelCalls: 1, toolCalls: 1 },
      { modelCalls: 1, toolCalls: 2 },
    ]);
  });

  it("a damaged count is refused before anything runs", async () => {
    const first = agent(turns, { limits: { toolCalls: 3 } });
    const paused = await first.loop.run("go");
    for (const damage of [
      { callCounts: { modelCalls: -1, toolCalls: 0 } },
      { callCounts: { modelCalls: 1 } },
      { limits: { toolCalls: "3" } },
      { limits: { toolCall: 3 } },
      { limits: { modelCalls: 0 } },
    ]) {
      const state = { ...roundTrip(paused.state), ...damage } as unknown as RunState;
      await expect(first.loop.resume(state, { s1: { approve: true } })).rejects.toThrow(
        ResumeError,
      );
    }
    expect(first.ran).toEqual(["work 1"]);
  });

  it("a signed state's limits cannot be raised by editing the JSON", async () => {
    const first = agent(turns, {
      limits: { toolCalls: 1 },
      trustState: false,
      signingKey: "k",
      allowReplay: true,
    });
    const paused = await first.loop.run("go");
    const edited = roundTrip(paused.state);
    edited.limits = { toolCalls: 100 };
    await expect(first.loop.resume(edited, { s1: { approve: true } })).rejects.toThrow(/signature/);
    expect(first.ran).toEqual(["work 1"]);
  });
});

function resumeResult(result: RunResult, id: string) {
  return resultOf(result, id)?.output;
}

describe("stream()", () => {
  it("streams the run to its limit: not-run results as tool-result events, then run-finish with the limit", async () => {
    const provider = scriptedProvider([work(1, 2, 3)], { stream: true });
    const ran: number[] = [];
    const loop = new AgentLoop({
      provider,
      tools: [
        tool({
          name: "work",
          input: z.object({ n: z.number() }),
          execute: ({ n }) => {
            ran.push(n);
            return "ok";
          },
        }),
      ],
    });
    const events: LoopEvent[] = [];
    for await (const event of loop.stream("go", { limits: { toolCalls: 1 } })) events.push(event);
    expect(ran).toEqual([1]);
    const results = events.flatMap((event) =>
      event.type === "tool-result" ? [[event.toolCallId, event.output]] : [],
    );
    // In completion order: the calls the limit stopped settle at once, w1 when its tool returns.
    expect(results.sort()).toEqual([
      ["w1", "ok"],
      ["w2", "not run: limit reached (toolCalls 1)"],
      ["w3", "not run: limit reached (toolCalls 1)"],
    ]);
    const finish = events.at(-1);
    expect(finish?.type).toBe("run-finish");
    if (finish?.type !== "run-finish") return;
    expect(finish.status).toBe("limit_reached");
    expect(finish.result.limit).toEqual({ name: "toolCalls", value: 1, used: 1 });
    expect(events.some((event) => event.type === "tool-call-delta")).toBe(true);
  });

  it("resumeStream() keeps counting", async () => {
    const first = agent([
      {
        toolCalls: [
          { name: "work", args: { n: 1 }, id: "w1" },
          { name: "send", args: { to: "ana" }, id: "s1" },
        ],
      },
      work(2),
    ]);
    const paused = await first.loop.run("go", { limits: { toolCalls: 2 } });
    const statuses: string[] = [];
    for await (const event of first.loop.resumeStream(roundTrip(paused.state), {
      s1: { approve: true },
    })) {
      if (event.type === "tool-result") statuses.push(String(event.output));
      if (event.type === "run-finish") statuses.push(event.status);
    }
    expect(statuses).toEqual([
      "sent to ana",
      "not run: limit reached (toolCalls 2)",
      "limit_reached",
    ]);
    expect(first.ran).toEqual(["work 1", "send ana"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: random limits × random scripts × random gate verdicts, paused runs resumed from
// JSON in a new loop with random decisions: no tool runs without ALLOW, the counts never go
// past the limits, every call has exactly one result.
// ---------------------------------------------------------------------------------------------

type Kind = "allow" | "deny" | "block" | "result" | "ask" | "invalid";
interface ScriptCall {
  kind: Kind;
  approve: boolean;
}
interface Turn {
  calls: ScriptCall[];
  inputTokens: number;
  outputTokens: number;
}
interface Scenario {
  limits: UsageLimits;
  runLimits: UsageLimits;
  maxSteps: number;
  parallel: number;
  turns: Turn[];
}

const limitsArb = fc.record(
  {
    modelCalls: fc.integer({ min: 1, max: 6 }),
    toolCalls: fc.integer({ min: 0, max: 8 }),
    inputTokens: fc.integer({ min: 1, max: 200 }),
    outputTokens: fc.integer({ min: 1, max: 100 }),
    totalTokens: fc.integer({ min: 1, max: 250 }),
  },
  { requiredKeys: [] },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  limits: limitsArb,
  runLimits: limitsArb,
  maxSteps: fc.integer({ min: 1, max: 8 }),
  parallel: fc.integer({ min: 1, max: 4 }),
  turns: fc.array(
    fc.record({
      calls: fc.array(
        fc.record({
          kind: fc.constantFrom<Kind>(
            "allow",
            "allow",
            "allow",
            "deny",
            "block",
            "result",
            "ask",
            "invalid",
          ),
          approve: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
      inputTokens: fc.integer({ min: 0, max: 60 }),
      outputTokens: fc.integer({ min: 0, max: 30 }),
    }),
    { maxLength: 8 },
  ),
});

async function play(scenario: Scenario) {
  const executed: string[] = [];
  const verdicts = new Map<string, string>();
  const requests: { inputTokens: number; outputTokens: number; totalTokens: number }[] = [];
  const spent = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const provider = functionProvider((_request, { step }) => {
    requests.push({ ...spent });
    const turn = scenario.turns[step];
    if (!turn || turn.calls.length === 0) return { text: "done" };
    spent.inputTokens += turn.inputTokens;
    spent.outputTokens += turn.outputTokens;
    spent.totalTokens += turn.inputTokens + turn.outputTokens;
    return {
      toolCalls: turn.calls.map((call, index) => ({
        id: `c${step}_${index}`,
        name: "act",
        args: call.kind === "invalid" ? { kind: 5 } : { kind: call.kind },
      })),
      usage: { inputTokens: turn.inputTokens, outputTokens: turn.outputTokens },
    };
  });
  const act = tool({
    name: "act",
    input: z.object({ kind: z.string() }),
    needsApproval: (args) => args.kind === "ask",
    maxRetries: 1000,
    execute: async (args, ctx) => {
      executed.push(ctx.toolCallId);
      await new Promise((resolve) => setImmediate(resolve));
      return `ran ${args.kind}`;
    },
  });
  const make = () =>
    new AgentLoop({
      provider,
      tools: [act],
      limits: scenario.limits,
      maxSteps: scenario.maxSteps,
      maxParallelToolCalls: scenario.parallel,
      trustState: true,
      onEvent: (event) => {
        if (event.type === "tool-decision") verdicts.set(event.toolCallId, event.verdict);
      },
      preToolCall: [
        ({ args }) => {
          const { kind } = args as { kind: string };
          if (kind === "block") return { block: "blocked" };
          if (kind === "result") return { result: "from a hook" };
          return undefined;
        },
      ],
      policy: {
        decideToolCall: ({ call }) =>
          (call.args as { kind: string }).kind === "deny" ? "DENY" : undefined,
      },
    });
  let result = await make().run("go", { limits: scenario.runLimits });
  let resumes = 0;
  while (result.status === "needs_approval") {
    resumes++;
    const decisions = Object.fromEntries(
      result.pending.map((pending) => {
        const [step, index] = pending.toolCallId.slice(1).split("_").map(Number);
        const approve = scenario.turns[step!]!.calls[index!]!.approve;
        return [
          pending.toolCallId,
          approve ? { approve: true as const } : { approve: false as const },
        ];
      }),
    );
    result = await make().resume(roundTrip(result.state), decisions);
  }
  return { result, executed, verdicts, requests, resumes };
}

describe("property: limits never let a call run the gate did not allow, and are never passed", () => {
  it("random limits and scripts, run and resumed from JSON", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { result, executed, verdicts, requests } = await play(scenario);
        const limits = { ...scenario.limits, ...scenario.runLimits };
        // No tool ran without ALLOW (by the gate, or by a human on resume).
        for (const id of executed) expect(verdicts.get(id)).toBe("allow");
        expect(new Set(executed).size).toBe(executed.length);
        // The counts never go past the limits.
        if (limits.toolCalls !== undefined) {
          expect(executed.length).toBeLessThanOrEqual(limits.toolCalls);
        }
        if (limits.modelCalls !== undefined) {
          expect(requests.length).toBeLessThanOrEqual(limits.modelCalls);
        }
        for (const name of ["inputTokens", "outputTokens", "totalTokens"] as const) {
          const value = limits[name];
          if (value === undefined) continue;
          for (const before of requests) {
            expect(before[name], `no model call once ${name} reached ${value}`).toBeLessThan(value);
          }
        }
        // What the state says was used is what happened.
        expect(result.state.callCounts).toEqual({
          modelCalls: requests.length,
          toolCalls: executed.length,
        });
        expect(result.state.limits).toEqual(limits);
        // Every call has exactly one result.
        expectOneResultPerCall(result.messages);
        // The ending is the limit's when one was reached, and it says what was used.
        if (result.status === "limit_reached") {
          const { name, value, used } = result.limit;
          expect(limits[name]).toBe(value);
          if (name === "toolCalls") expect(used).toBe(executed.length);
          else if (name === "modelCalls") expect(used).toBe(requests.length);
          else expect(used).toBe(result.usage[name]);
          expect(used).toBeGreaterThanOrEqual(value);
        }
        // Only calls the limit stopped say so, and only calls the gate allowed (or a human).
        for (const step of result.steps) {
          for (const call of step.calls) {
            if (call.result?.output === `not run: limit reached (toolCalls ${limits.toolCalls})`) {
              expect(["allow", "needs-approval"]).toContain(call.verdict);
              expect(executed).not.toContain(call.toolCallId);
            }
          }
        }
      }),
      { numRuns: runs(1_000) },
    );
  }, 60_000);

  it("is not vacuous: every limit ends some runs, and some resumed runs reach a limit", async () => {
    const seen = new Set<string>();
    let resumedToLimit = 0;
    for (const scenario of fc.sample(scenarioArb, { numRuns: 300, seed: 11 })) {
      const { result, resumes } = await play(scenario);
      seen.add(result.status === "limit_reached" ? result.limit.name : result.status);
      if (resumes > 0 && result.status === "limit_reached") resumedToLimit++;
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        "modelCalls",
        "toolCalls",
        "inputTokens",
        "outputTokens",
        "totalTokens",
        "completed",
        "max_steps",
      ]),
    );
    expect(resumedToLimit).toBeGreaterThan(5);
  });
});
