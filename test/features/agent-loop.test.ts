import {
  AgentLoop,
  type Message,
  RetryError,
  type ToolContext,
  ToolExecutionError,
  ToolRetriesExceededError,
  tool,
  toolset,
} from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

const toolResults = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));

describe("AgentLoop.run", () => {
  it("runs a tool the model asks for and returns the final answer with every RunResult field", async () => {
    const provider = scriptedProvider([
      {
        toolCalls: [{ name: "echo", args: { text: "hi" }, id: "c1" }],
        usage: { inputTokens: 10, outputTokens: 2 },
      },
      { text: "said hi", usage: { inputTokens: 20, outputTokens: 3, reasoningTokens: 1 } },
    ]);
    const loop = new AgentLoop({ provider, tools: [echo] });
    const result = await loop.run("say hi");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("said hi");
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toEqual({
      inputTokens: 30,
      outputTokens: 5,
      totalTokens: 35,
      reasoningTokens: 1,
    });
    expect(result.messages).toEqual([
      { role: "user", content: "say hi" },
      {
        role: "assistant",
        parts: [{ type: "tool-call", id: "c1", name: "echo", args: '{"text":"hi"}' }],
      },
      {
        role: "tool",
        results: [{ toolCallId: "c1", toolName: "echo", output: "hi", isError: false }],
      },
      { role: "assistant", parts: [{ type: "text", text: "said hi" }] },
    ]);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]).toMatchObject({
      index: 0,
      tools: ["echo"],
      callable: ["echo"],
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
      calls: [
        {
          toolCallId: "c1",
          toolName: "echo",
          rawArgs: '{"text":"hi"}',
          args: { text: "hi" },
          verdict: "allow",
          by: "default",
          result: { toolCallId: "c1", toolName: "echo", output: "hi", isError: false },
        },
      ],
    });
    expect(result.steps[0]!.response.finishReason).toBe("tool-calls");
    expect(result.steps[0]!.ms).toBeGreaterThanOrEqual(0);
    expect(result.steps[0]!.calls[0]!.ms).toBeGreaterThanOrEqual(0);
    expect(result.stopReason).toBeUndefined();
    expect(result.endedBy).toBeUndefined();
    expect(result.pending).toBeUndefined();
    expect(JSON.parse(JSON.stringify(result.state))).toEqual(result.state);
    expect(result.state).toMatchObject({
      version: 3,
      runId: expect.any(String),
      stateId: expect.any(String),
    });
    provider.assertComplete();
  });

  it("sends the instructions, settings, tool specs and transcript, as a fresh copy each step", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: { text: "a" } }] },
      { text: "done" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [echo],
      instructions: "be brief",
      settings: { temperature: 0 },
    });
    await loop.run("go");
    const [first, second] = provider.requests;
    expect(first).toMatchObject({ system: "be brief", settings: { temperature: 0 } });
    expect(first!.tools).toEqual([
      { name: "echo", description: "", inputSchema: echo.inputSchema },
    ]);
    expect(first!.messages).toEqual([{ role: "user", content: "go" }]);
    expect(second!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(first!.messages).not.toBe(second!.messages);
  });

  it("accepts a transcript as input and continues it", async () => {
    const provider = scriptedProvider([{ text: "second answer" }]);
    const loop = new AgentLoop({ provider });
    const history: Message[] = [
      { role: "user", content: "one" },
      { role: "assistant", parts: [{ type: "text", text: "first answer" }] },
      { role: "user", content: "two" },
    ];
    const result = await loop.run(history);
    expect(result.messages).toEqual([
      ...history,
      { role: "assistant", parts: [{ type: "text", text: "second answer" }] },
    ]);
    expect(history).toHaveLength(3);
  });

  it("rejects input that is not a prompt or messages", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([]) });
    await expect(loop.run(42 as never)).rejects.toThrow(TypeError);
    await expect(loop.run([{ role: "system", content: "x" }] as never)).rejects.toThrow(/role/);
  });

  it('text is the last assistant message\'s text, "" when it has none', async () => {
    const provider = scriptedProvider([
      { text: "thinking", toolCalls: [{ name: "echo", args: { text: "x" } }] },
    ]);
    const loop = new AgentLoop({ provider, tools: [echo], maxSteps: 1 });
    const result = await loop.run("go");
    expect(result.text).toBe("thinking");
    const silent = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "x" } }] }]),
      tools: [echo],
      maxSteps: 1,
    });
    expect((await silent.run("go")).text).toBe("");
  });

  it("exposes a length finish reason", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "cut", finishReason: "length" }]),
    });
    expect(await loop.run("go")).toMatchObject({ status: "completed", finishReason: "length" });
  });

  it("deps reach tools, and a run's deps replace the loop's", async () => {
    const seen: string[] = [];
    const whoami = tool({
      name: "whoami",
      input: z.object({}),
      execute: (_args, ctx: ToolContext<{ user: string }>) => seen.push(ctx.deps.user),
    });
    const script = () => scriptedProvider([{ toolCalls: [{ name: "whoami" }] }, { text: "ok" }]);
    await new AgentLoop({ provider: script(), tools: [whoami], deps: { user: "loop" } }).run("x");
    await new AgentLoop({ provider: script(), tools: [whoami], deps: { user: "loop" } }).run("x", {
      deps: { user: "run" },
    });
    expect(seen).toEqual(["loop", "run"]);
  });

  it("gives tools a context with every field", async () => {
    const contexts: ToolContext<string>[] = [];
    const probe = tool({
      name: "probe",
      input: z.object({ n: z.number() }),
      maxRetries: 3,
      execute: (_args, ctx: ToolContext<string>) => {
        contexts.push(ctx);
        return "ok";
      },
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "probe", args: '{"n": "bad"}' }] },
      { toolCalls: [{ name: "probe", args: '{"n": 1}', id: "p2" }] },
      { text: "done" },
    ]);
    await new AgentLoop({ provider, tools: [probe], deps: "D" }).run("go");
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      deps: "D",
      toolCallId: "p2",
      toolName: "probe",
      retry: 1,
      maxRetries: 3,
      step: 1,
      rawArgs: '{"n": 1}',
    });
    expect(contexts[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("accepts a Toolset as tools and rejects duplicate names in an array", () => {
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), tools: toolset([echo]) }),
    ).not.toThrow();
    expect(() => new AgentLoop({ provider: scriptedProvider([]), tools: [echo, echo] })).toThrow(
      /already/,
    );
  });

  it("checks its options eagerly", () => {
    const provider = scriptedProvider([]);
    expect(() => new AgentLoop({ provider: {} as never })).toThrow(/provider/);
    expect(() => new AgentLoop({ provider, maxSteps: 0 })).toThrow(/maxSteps/);
    expect(() => new AgentLoop({ provider, maxParallelToolCalls: 0 })).toThrow(
      /maxParallelToolCalls/,
    );
    expect(() => new AgentLoop({ provider, toolErrors: "ignore" as never })).toThrow(/toolErrors/);
    expect(() => new AgentLoop({ provider, preToolCall: [42 as never] })).toThrow(/preToolCall/);
  });
});

describe("tool outputs", () => {
  it("sends strings as they are and stores anything else JSON-normalised (undefined → null)", async () => {
    const outputs: unknown[] = [
      undefined,
      3,
      { when: new Date(0), skip: undefined },
      [1, undefined],
      "text",
      Number.NaN,
    ];
    const makeTool = (i: number) =>
      tool({ name: `t${i}`, input: z.object({}), execute: () => outputs[i] });
    const tools = outputs.map((_, i) => makeTool(i));
    const provider = scriptedProvider([
      { toolCalls: tools.map((t) => ({ name: t.name })) },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({ provider, tools }).run("go");
    expect(toolResults(result.messages).map((r) => r.output)).toEqual([
      null,
      3,
      { when: "1970-01-01T00:00:00.000Z" },
      [1, null],
      "text",
      null,
    ]);
  });

  it("turns an output that cannot be JSON into an error result", async () => {
    const big = tool({ name: "big", input: z.object({}), execute: () => ({ n: 1n }) });
    const provider = scriptedProvider([{ toolCalls: [{ name: "big" }] }, { text: "ok" }]);
    const result = await new AgentLoop({ provider, tools: [big] }).run("go");
    expect(toolResults(result.messages)[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/BigInt/),
    });
  });
});

describe("retries", () => {
  it("feeds invalid JSON back to the model naming the problem, and counts it", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: '{"text": "unterminated' }] },
      { text: "sorry" },
    ]);
    const result = await new AgentLoop({ provider, tools: [echo] }).run("go");
    const [res] = toolResults(result.messages);
    expect(res).toMatchObject({
      isError: true,
      output: expect.stringMatching(/invalid JSON in the arguments for tool echo/),
    });
    expect(result.state.retries).toEqual({ echo: 1 });
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "invalid", by: "schema" });
  });

  it("feeds a schema violation back naming the failing path", async () => {
    const nested = tool({
      name: "nested",
      input: z.object({ items: z.array(z.object({ qty: z.number() })) }),
      execute: () => "ok",
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "nested", args: { items: [{ qty: 1 }, { qty: "2" }] } }] },
      { text: "sorry" },
    ]);
    const result = await new AgentLoop({ provider, tools: [nested] }).run("go");
    expect(toolResults(result.messages)[0]!.output).toMatch(/items\[1\]\.qty: .*expected number/);
  });

  it("treats empty args as {}", async () => {
    const none = tool({ name: "none", input: z.object({}), execute: () => "ran" });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "none", args: "" }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({ provider, tools: [none] }).run("go");
    expect(toolResults(result.messages)[0]).toMatchObject({ output: "ran", isError: false });
  });

  it("a RetryError's message goes to the model and counts; ctx.retry shows the count", async () => {
    const seen: number[] = [];
    const flaky = tool({
      name: "flaky",
      input: z.object({}),
      maxRetries: 2,
      execute: (_args, ctx) => {
        seen.push(ctx.retry);
        if (ctx.retry < 2) throw new RetryError(`try again (${ctx.retry})`);
        return "finally";
      },
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "flaky" }] },
      { toolCalls: [{ name: "flaky" }] },
      { toolCalls: [{ name: "flaky" }] },
      { text: "done" },
    ]);
    const result = await new AgentLoop({ provider, tools: [flaky] }).run("go");
    expect(seen).toEqual([0, 1, 2]);
    expect(toolResults(result.messages)).toMatchObject([
      { output: "try again (0)", isError: true },
      { output: "try again (1)", isError: true },
      { output: "finally", isError: false },
    ]);
  });

  it("past maxRetries the run rejects with ToolRetriesExceededError carrying the transcript", async () => {
    const strict = tool({
      name: "strict",
      input: z.object({ n: z.number() }),
      maxRetries: 1,
      execute: () => "ok",
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "strict", args: { n: "x" } }] },
      {
        toolCalls: [
          { name: "strict", args: { n: "y" } },
          { name: "strict", args: { n: 1 } },
        ],
      },
    ]);
    const error = await new AgentLoop({ provider, tools: [strict] }).run("go").catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error).toMatchObject({ toolName: "strict", maxRetries: 1 });
    const messages: Message[] = error.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(toolResults(messages).slice(1)).toMatchObject([
      { isError: true },
      { isError: true, output: expect.stringMatching(/^not run/) },
    ]);
  });

  it("retries are counted per tool and never reset", async () => {
    const a = tool({
      name: "a",
      input: z.object({ n: z.number() }),
      maxRetries: 1,
      execute: () => "a",
    });
    const b = tool({
      name: "b",
      input: z.object({ n: z.number() }),
      maxRetries: 1,
      execute: () => "b",
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "a", args: {} }] },
      {
        toolCalls: [
          { name: "a", args: { n: 1 } },
          { name: "b", args: {} },
        ],
      },
      { toolCalls: [{ name: "a", args: {} }] },
    ]);
    const error = await new AgentLoop({ provider, tools: [a, b] }).run("go").catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error.toolName).toBe("a");
  });

  it("a RetryError past maxRetries rejects once the step's other calls settle", async () => {
    let otherFinished = false;
    const failing = tool({
      name: "failing",
      input: z.object({}),
      maxRetries: 0,
      execute: () => {
        throw new RetryError("no");
      },
    });
    const slow = tool({
      name: "slow",
      input: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        otherFinished = true;
        return "slow done";
      },
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "failing" }, { name: "slow" }] }]);
    const error = await new AgentLoop({ provider, tools: [failing, slow] })
      .run("go")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error.cause).toBeInstanceOf(RetryError);
    expect(otherFinished).toBe(true);
    expect(toolResults(error.messages).map((r) => r.output)).toEqual(["no", "slow done"]);
  });

  it("calls to tools that are not callable count against the loop's maxRetries", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "missing" }] },
      { toolCalls: [{ name: "missing" }] },
      { toolCalls: [{ name: "missing" }] },
    ]);
    const error = await new AgentLoop({ provider, tools: [echo], maxRetries: 1 })
      .run("go")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(provider.requests).toHaveLength(2);
    const ok = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "missing" }] },
        { toolCalls: [{ name: "missing" }] },
        { text: "gave up" },
      ]),
      tools: [echo],
      maxRetries: 2,
    }).run("go");
    expect(ok.status).toBe("completed");
  });

  it("a timeout is an error result that does not count as a retry", async () => {
    const sleepy = tool({
      name: "sleepy",
      input: z.object({}),
      maxRetries: 0,
      timeoutMs: 20,
      execute: (_args, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("late"))),
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "sleepy" }] },
      { toolCalls: [{ name: "sleepy" }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({ provider, tools: [sleepy] }).run("go");
    expect(toolResults(result.messages)).toMatchObject([
      { isError: true, output: "tool sleepy timed out after 20 ms" },
      { isError: true, output: "tool sleepy timed out after 20 ms" },
    ]);
    expect(result.state.retries).toEqual({});
  });
});

describe("tool errors", () => {
  const boom = tool({
    name: "boom",
    input: z.object({}),
    execute: () => {
      throw new Error("kaboom");
    },
  });

  it("a throwing tool gives an error result with its message and the run goes on", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "boom" }] }, { text: "recovered" }]);
    const result = await new AgentLoop({ provider, tools: [boom] }).run("go");
    expect(toolResults(result.messages)[0]).toMatchObject({ output: "kaboom", isError: true });
    expect(result.status).toBe("completed");
    expect(result.state.retries).toEqual({});
  });

  it('with toolErrors: "throw" the run rejects with ToolExecutionError', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "boom" }] }, { text: "never" }]);
    const error = await new AgentLoop({ provider, tools: [boom], toolErrors: "throw" })
      .run("go")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect(error).toMatchObject({ toolName: "boom", message: expect.stringMatching(/kaboom/) });
    expect(error.cause).toEqual(new Error("kaboom"));
    expect(error.messages.at(-1)).toMatchObject({ role: "tool" });
  });
});

describe("max_steps", () => {
  it("runs the last step's tool calls, then ends without another model call", async () => {
    let ran = 0;
    const count = tool({ name: "count", input: z.object({}), execute: () => ++ran });
    const provider = functionProvider(() => ({ toolCalls: [{ name: "count" }] }));
    const result = await new AgentLoop({ provider, tools: [count], maxSteps: 3 }).run("go");
    expect(result.status).toBe("max_steps");
    expect(provider.requests).toHaveLength(3);
    expect(ran).toBe(3);
    expect(result.messages.at(-1)).toMatchObject({ role: "tool" });
  });

  it("a run's maxSteps replaces the loop's", async () => {
    const provider = functionProvider(() => ({
      toolCalls: [{ name: "echo", args: { text: "x" } }],
    }));
    const result = await new AgentLoop({ provider, tools: [echo], maxSteps: 5 }).run("go", {
      maxSteps: 2,
    });
    expect(result.steps).toHaveLength(2);
  });

  it("an answer on the last allowed step completes", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: { text: "x" } }] },
      { text: "done" },
    ]);
    expect((await new AgentLoop({ provider, tools: [echo], maxSteps: 2 }).run("go")).status).toBe(
      "completed",
    );
  });
});

describe("parallel and sequential calls", () => {
  it("runs a step's calls concurrently up to maxParallelToolCalls; results keep call order", async () => {
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const work = tool({
      name: "work",
      input: z.object({ i: z.number(), ms: z.number() }),
      execute: async ({ i, ms }) => {
        peak = Math.max(peak, ++running);
        await new Promise((resolve) => setTimeout(resolve, ms));
        running--;
        order.push(i);
        return i;
      },
    });
    const calls = [40, 5, 30, 1, 20].map((ms, i) => ({ name: "work", args: { i, ms } }));
    const provider = scriptedProvider([{ toolCalls: calls }, { text: "ok" }]);
    const result = await new AgentLoop({ provider, tools: [work], maxParallelToolCalls: 2 }).run(
      "go",
    );
    expect(peak).toBe(2);
    expect(order).not.toEqual([0, 1, 2, 3, 4]);
    expect(toolResults(result.messages).map((r) => r.output)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a sequential tool runs alone: earlier calls settle first, later ones wait", async () => {
    const log: string[] = [];
    const make = (name: string, sequential: boolean) =>
      tool({
        name,
        sequential,
        input: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          log.push(`start ${id}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
          log.push(`end ${id}`);
          return id;
        },
      });
    const par = make("par", false);
    const seq = make("seq", true);
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "par", args: { id: "p1" } },
          { name: "par", args: { id: "p2" } },
          { name: "seq", args: { id: "s" } },
          { name: "par", args: { id: "p3" } },
        ],
      },
      { text: "ok" },
    ]);
    await new AgentLoop({ provider, tools: [par, seq] }).run("go");
    expect(log.slice(0, 2).sort()).toEqual(["start p1", "start p2"]);
    expect(log.indexOf("start s")).toBeGreaterThan(
      Math.max(log.indexOf("end p1"), log.indexOf("end p2")),
    );
    expect(log.indexOf("start p3")).toBeGreaterThan(log.indexOf("end s"));
  });
});
