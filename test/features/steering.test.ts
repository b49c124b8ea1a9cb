import {
  AgentLoop,
  type AgentLoopOptions,
  hasToolCall,
  type LoopEvent,
  type Message,
  ModelTimeoutError,
  PolicyError,
  type Provider,
  ProviderError,
  RUN_STATE_SCHEMA,
  type RunState,
  RunTimeoutError,
  type StopContext,
  stepCountIs,
  tool,
} from "tollgate";
import { functionProvider, type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Steering each step (DESIGN §11): `prepareStep` may also return `instructions`, `settings`,
 * `provider` and `messages` for one step, each recorded in the step record; `stopWhen`
 * conditions end a run with "stopped_by_condition"; `timeoutMs` (the run) and
 * `modelTimeoutMs` (each model call) abort with typed errors.
 */

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
  execute: ({ to }) => `sent to ${to}`,
});

const calls = (...ns: number[]) => ({
  toolCalls: ns.map((n) => ({ name: "work", args: { n }, id: `c${n}` })),
});

function loopOf(turns: readonly ScriptedTurn[], options: Partial<AgentLoopOptions> = {}) {
  const provider = scriptedProvider(turns);
  const loop = new AgentLoop({ provider, tools: [work, send], trustState: true, ...options });
  return { provider, loop };
}

/** Every tool call of a transcript has exactly one result in the tool message right after it. */
function expectInvariant(messages: Message[]): void {
  messages.forEach((message, i) => {
    if (message.role !== "assistant") return;
    const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
    if (ids.length === 0) return;
    const next = messages[i + 1];
    expect(next?.role).toBe("tool");
    if (next?.role === "tool") expect(next.results.map((r) => r.toolCallId)).toEqual(ids);
  });
}

/** A provider that answers only when its signal aborts (then rejects with the reason), or never. */
function waitingProvider(honoursSignal = true): Provider & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    name: "waiting",
    model: "w-1",
    signals,
    generate: (_request, { signal }) => {
      if (signal) signals.push(signal);
      return new Promise((_resolve, reject) => {
        if (honoursSignal) signal?.addEventListener("abort", () => reject(signal.reason));
      });
    },
  };
}

describe("prepareStep steers a step: instructions, settings, provider, messages", () => {
  it("instructions replace the run's for that step only, and the step record says so", async () => {
    const { provider, loop } = loopOf([calls(1), { text: "done" }], {
      instructions: "You are careful.",
      policy: {
        prepareStep: ({ stepIndex }) =>
          stepIndex === 1 ? { instructions: "Answer in one word." } : undefined,
      },
    });
    const result = await loop.run("go");
    expect(provider.requests.map((request) => request.system)).toEqual([
      "You are careful.",
      "Answer in one word.",
    ]);
    expect(result.steps[0]!.instructions).toBeUndefined();
    expect(result.steps[1]!.instructions).toBe("Answer in one word.");
  });

  it("settings go over the run's key by key, and the record keeps the step's own", async () => {
    const { provider, loop } = loopOf([calls(1), { text: "done" }], {
      settings: { temperature: 0.2, maxOutputTokens: 100 },
      policy: {
        prepareStep: ({ stepIndex }) =>
          stepIndex === 1 ? { settings: { temperature: 0.9, seed: undefined } } : undefined,
      },
    });
    const result = await loop.run("go", { settings: { topP: 0.5 } });
    expect(provider.requests[0]!.settings).toEqual({
      temperature: 0.2,
      maxOutputTokens: 100,
      topP: 0.5,
    });
    expect(provider.requests[1]!.settings).toEqual({
      temperature: 0.9,
      maxOutputTokens: 100,
      topP: 0.5,
    });
    expect(result.steps[1]!.settings).toEqual({ temperature: 0.9 });
  });

  it.each([
    [
      { settings: { temperature: "hot" } },
      /prepareStep returned bad settings: settings.temperature/,
    ],
    [{ settings: { maxTokens: 5 } }, /did you mean `maxOutputTokens`/],
    [{ settings: "warm" }, /bad settings: `settings` must be an object/],
    [{ settings: { extra: 10n } }, /settings JSON cannot carry/],
    [{ instructions: 42 }, /prepareStep returned instructions 42; give a string/],
    [{ provider: { name: "x" } }, /returned a provider that has no generate\(\) method/],
    [{ provider: { generate: () => {} } }, /returned a provider that has no name/],
    [{ provider: "gpt-5" }, /returned a provider that is "gpt-5"/],
    [{ messages: [] }, /returned messages that are empty/],
    [{ messages: "hi" }, /returned messages that are "hi", not an array/],
    [{ messages: [{ role: "system", content: "x" }] }, /messages that fail: \[0\]/],
    [
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: "https://x" }] }] },
      /message 0 \(user\).*another API's shape/,
    ],
    [{ prompt: "x" }, /returned the unknown key `prompt`/],
  ])(
    "a bad answer (case %#) is a PolicyError, and no model call is made",
    async (answer, message) => {
      const { provider, loop } = loopOf([{ text: "never" }], {
        policy: { prepareStep: () => answer as never },
      });
      const error = await loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("prepareStep");
      expect((error as Error).message).toMatch(message);
      expect(provider.requests).toHaveLength(0);
    },
  );

  it("a provider for one step: called instead of the loop's, recorded, and what hooks see", async () => {
    const other = scriptedProvider([calls(2)], { name: "other", model: "o-2" });
    const seen: string[] = [];
    const { provider, loop } = loopOf([calls(1), { text: "done" }], {
      preToolCall: [({ provider, model }) => void seen.push(`${provider}/${model}`)],
      policy: { prepareStep: ({ stepIndex }) => (stepIndex === 1 ? { provider: other } : {}) },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(provider.requests).toHaveLength(2);
    expect(other.requests).toHaveLength(1);
    expect(seen).toEqual(["scripted/scripted", "other/o-2"]);
    expect(result.steps.map((step) => step.provider)).toEqual([
      undefined,
      { name: "other", model: "o-2" },
      undefined,
    ]);
  });

  it("a provider without native structured output is refused while the run's output is native", async () => {
    const native = scriptedProvider([{ text: "{}" }], { supportsNativeOutput: true });
    const plain = scriptedProvider([{ text: "{}" }]);
    const loop = new AgentLoop({
      provider: native,
      output: { schema: z.object({ a: z.number() }), mode: "native" },
      policy: { prepareStep: () => ({ provider: plain }) },
    });
    await expect(loop.run("go")).rejects.toThrow(/does not declare supportsNativeOutput/);
    expect(plain.requests).toHaveLength(0);
  });

  it("messages: the step sends the trimmed list; the transcript and the state keep every message", async () => {
    const { provider, loop } = loopOf([calls(1), calls(2), { text: "done" }], {
      policy: {
        prepareStep: ({ messages }) => {
          // Keep the first user message and the last step's call with its result.
          if (messages.length < 4) return undefined;
          return { messages: [messages[0]!, ...messages.slice(-2)] };
        },
      },
    });
    const result = await loop.run("go");
    expect(provider.requests.map((request) => request.messages.length)).toEqual([1, 3, 3]);
    expect(provider.requests[2]!.messages[1]).toEqual(result.messages[3]);
    expect(result.messages).toHaveLength(6);
    expectInvariant(result.messages);
    expect(result.steps.map((step) => step.messages)).toEqual([undefined, undefined, 3]);
    expect(result.state.steps[2]!.messages).toBe(3);
  });

  it("prepareStep's messages and steps are copies: changing them changes neither the run nor its state", async () => {
    const { provider, loop } = loopOf([calls(1), { text: "done" }], {
      policy: {
        prepareStep: ({ messages, steps }) => {
          for (const message of messages) if (message.role === "user") message.content = "HACKED";
          for (const step of steps) step.tools = [];
          return undefined;
        },
      },
    });
    const result = await loop.run("go");
    expect(result.messages[0]).toEqual({ role: "user", content: "go" });
    expect(provider.requests[1]!.messages[0]).toEqual({ role: "user", content: "go" });
    expect(result.steps[0]!.tools).toEqual(["work", "send"]);
  });

  it("the messages given are copied when read: changing them afterwards changes nothing sent", async () => {
    const given: Message[] = [{ role: "user", content: "short" }];
    const { provider, loop } = loopOf([{ text: "done" }], {
      policy: { prepareStep: () => ({ messages: given }) },
    });
    const seen = loop.run("go");
    (given[0] as { content: string }).content = "changed";
    await seen;
    expect(provider.requests[0]!.messages).toEqual([{ role: "user", content: "short" }]);
  });

  const call = (id: string): Message => ({
    role: "assistant",
    parts: [{ type: "tool-call", id, name: "work", args: "{}" }],
  });
  const results = (...ids: string[]): Message => ({
    role: "tool",
    results: ids.map((id) => ({ toolCallId: id, toolName: "work", output: "ok", isError: false })),
  });
  const user: Message = { role: "user", content: "hi" };

  it.each([
    [
      "a tool message without its assistant message",
      [user, results("a")],
      /\[1\]: a tool message must directly follow/,
    ],
    [
      "an assistant message's calls without their results",
      [user, call("a")],
      /\[1\]: the assistant message's tool calls must be followed/,
    ],
    ["calls without results before a user message", [user, call("a"), user], /\[1\]/],
    [
      "a result for another call",
      [user, call("a"), results("b")],
      /\[2\]: the result for call b answers no call/,
    ],
    ["a result twice", [user, call("a"), results("a", "a")], /answers it twice/],
    [
      "a call without its result",
      [
        {
          role: "assistant",
          parts: [
            { type: "tool-call", id: "a", name: "work", args: "{}" },
            { type: "tool-call", id: "b", name: "work", args: "{}" },
          ],
        },
        results("a"),
      ],
      /call b has no result/,
    ],
  ] as [string, Message[], RegExp][])(
    "messages that break the transcript's invariant are refused: %s",
    async (_name, messages, problem) => {
      const { provider, loop } = loopOf([{ text: "never" }], {
        policy: { prepareStep: () => ({ messages }) },
      });
      const error = await loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as Error).message).toMatch(problem);
      expect(provider.requests).toHaveLength(0);
    },
  );

  it("messages that keep the invariant pass: a call with its results, then more", async () => {
    const { provider, loop } = loopOf([{ text: "done" }], {
      policy: { prepareStep: () => ({ messages: [user, call("a"), results("a"), user] }) },
    });
    expect((await loop.run("go")).status).toBe("completed");
    expect(provider.requests[0]!.messages).toHaveLength(4);
  });

  it("{ messages } alone keeps every tool shown and callable; tools and callable still narrow", async () => {
    const { provider, loop } = loopOf([{ text: "a" }], {
      policy: { prepareStep: ({ messages }) => ({ messages, callable: ["work"] }) },
    });
    const result = await loop.run("go");
    expect(provider.requests[0]!.tools.map((spec) => spec.name)).toEqual(["work", "send"]);
    expect(result.steps[0]!.callable).toEqual(["work"]);
  });

  it("a paused step's steering survives JSON and resume, and the state fits its schema", async () => {
    const { loop } = loopOf(
      [{ toolCalls: [{ name: "send", args: { to: "ana" }, id: "s1" }] }, { text: "done" }],
      {
        policy: {
          prepareStep: ({ messages }) => ({
            instructions: "Be brief.",
            settings: { temperature: 0 },
            messages,
          }),
        },
      },
    );
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const saved: RunState = JSON.parse(JSON.stringify(paused.state));
    expect(saved.steps[0]).toMatchObject({
      instructions: "Be brief.",
      settings: { temperature: 0 },
      messages: 1,
    });
    const resumed = await loop.resume(saved, { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(resumed.steps[0]).toMatchObject({ instructions: "Be brief.", messages: 1 });
    expect(RUN_STATE_SCHEMA.properties.status.enum).toContain("stopped_by_condition");
  });

  it("a state whose step record has a steering field of the wrong type is refused", async () => {
    const { loop } = loopOf([{ toolCalls: [{ name: "send", args: { to: "ana" }, id: "s1" }] }]);
    const paused = await loop.run("go");
    const saved = JSON.parse(JSON.stringify(paused.state));
    saved.steps[0].messages = "all";
    await expect(loop.resume(saved, { s1: { approve: true } })).rejects.toThrow(
      /steps\[0\]\.messages/,
    );
  });
});

describe("stopWhen: conditions over the steps so far, checked after each step", () => {
  it("stepCountIs(n) ends the run after n steps with stopped_by_condition and which one", async () => {
    const events: LoopEvent[] = [];
    const { provider, loop } = loopOf([calls(1), calls(2), calls(3)], {
      stopWhen: [stepCountIs(2)],
      onEvent: (event) => void events.push(event),
    });
    const result = await loop.run("go");
    expect(result.status).toBe("stopped_by_condition");
    if (result.status !== "stopped_by_condition") return;
    expect(result.stoppedBy).toEqual({ index: 0, name: "stepCountIs(2)" });
    expect(result.steps).toHaveLength(2);
    expect(provider.remaining).toBe(1);
    expect(result.state.status).toBe("stopped_by_condition");
    expectInvariant(result.messages);
    expect(events.at(-1)).toMatchObject({ type: "run-finish", status: "stopped_by_condition" });
  });

  it("hasToolCall(name) stops after a step that called the tool, whatever the gate decided", async () => {
    const { loop } = loopOf(
      [
        calls(1),
        {
          toolCalls: [
            { name: "work", args: { n: 2 } },
            { name: "send", args: { to: "x" } },
          ],
        },
        calls(3),
      ],
      {
        stopWhen: [hasToolCall("send"), hasToolCall("work")],
        policy: { decideToolCall: ({ call }) => (call.name === "send" ? "DENY" : "ALLOW") },
      },
    );
    const result = await loop.run("go");
    // Step 0 called work: the second condition (index 1) answers first there.
    expect(result.stoppedBy).toEqual({ index: 1, name: 'hasToolCall("work")' });
    expect(result.steps).toHaveLength(1);
    const denied = loopOf([{ toolCalls: [{ name: "send", args: { to: "x" } }] }, calls(3)], {
      stopWhen: [hasToolCall("send")],
      policy: { decideToolCall: () => "DENY" },
    });
    const second = await denied.loop.run("go");
    expect(second.status).toBe("stopped_by_condition");
    expect(second.steps[0]!.calls[0]!.verdict).toBe("deny");
  });

  it("custom conditions get the steps, messages, usage and deps; the first true one wins, in order", async () => {
    const seen: StopContext<{ budget: number }>[] = [];
    function overBudget(context: StopContext<{ budget: number }>) {
      seen.push(context);
      return context.usage.totalTokens > context.deps.budget;
    }
    const provider = scriptedProvider([
      { ...calls(1), usage: { inputTokens: 10, outputTokens: 5 } },
      { ...calls(2), usage: { inputTokens: 10, outputTokens: 5 } },
      { text: "never" },
    ]);
    const loop = new AgentLoop<{ budget: number }>({
      provider,
      tools: [work],
      deps: { budget: 20 },
      stopWhen: [async () => false, overBudget, ({ steps }) => steps.length > 2],
    });
    const result = await loop.run("go");
    expect(result.stoppedBy).toEqual({ index: 1, name: "overBudget" });
    expect(seen.map((context) => context.steps.length)).toEqual([1, 2]);
    expect(seen[1]!.messages).toHaveLength(5);
    expect(Object.isFrozen(seen[1]!.steps[0])).toBe(true);
  });

  it("an anonymous condition is named by its index only", async () => {
    const { loop } = loopOf([calls(1)], {
      stopWhen: [
        (
          () => () =>
            true
        )(),
      ],
    });
    const result = await loop.run("go");
    expect(result.stoppedBy).toEqual({ index: 0 });
  });

  it("a run's stopWhen replaces the loop's", async () => {
    const { loop } = loopOf([calls(1), calls(2), { text: "done" }], { stopWhen: [stepCountIs(1)] });
    const result = await loop.run("go", { stopWhen: [stepCountIs(2)] });
    expect(result.stoppedBy).toEqual({ index: 0, name: "stepCountIs(2)" });
  });

  it("not asked when the step ends the run anyway: completed, ended_by_tool and needs_approval stay", async () => {
    let asked = 0;
    const always = () => {
      asked++;
      return true;
    };
    const completed = loopOf([{ text: "done" }], { stopWhen: [always] });
    expect((await completed.loop.run("go")).status).toBe("completed");
    const ended = loopOf([calls(1)], { stopWhen: [always], policy: { endsRun: () => true } });
    expect((await ended.loop.run("go")).status).toBe("ended_by_tool");
    const paused = loopOf([{ toolCalls: [{ name: "send", args: { to: "x" } }] }], {
      stopWhen: [always],
    });
    expect((await paused.loop.run("go")).status).toBe("needs_approval");
    expect(asked).toBe(0);
  });

  it("a condition that answers true after the last allowed step wins over max_steps", async () => {
    const { loop } = loopOf([calls(1)], { maxSteps: 1, stopWhen: [stepCountIs(1)] });
    expect((await loop.run("go")).status).toBe("stopped_by_condition");
  });

  it("is asked after a resumed run's first step too", async () => {
    const { loop } = loopOf([
      { toolCalls: [{ name: "send", args: { to: "x" }, id: "s1" }] },
      { text: "never" },
    ]);
    const paused = await loop.run("go");
    const resumed = await loop.resume(
      JSON.parse(JSON.stringify(paused.state)),
      { s1: { approve: true } },
      { stopWhen: [stepCountIs(1)] },
    );
    expect(resumed.status).toBe("stopped_by_condition");
    expect(resumed.steps).toHaveLength(1);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("no budget");
      },
      /stopWhen\[0\] threw: no budget/,
    ],
    [
      "rejects",
      async () => {
        throw new Error("later");
      },
      /stopWhen\[0\] threw: later/,
    ],
    ["answers a string", () => "yes", /stopWhen\[0\] returned "yes"; return true or false/],
    ["answers undefined", () => undefined, /stopWhen\[0\] returned undefined/],
  ])(
    "a condition that %s is a PolicyError, and no further step runs",
    async (_name, condition, message) => {
      const { provider, loop } = loopOf([calls(1), { text: "never" }], {
        stopWhen: [condition as never],
      });
      const error = await loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("stopWhen[0]");
      expect((error as Error).message).toMatch(message);
      expect(provider.requests).toHaveLength(1);
      expectInvariant((error as PolicyError).messages!);
    },
  );

  it("the option is checked: a list of functions", async () => {
    const provider = scriptedProvider([]);
    expect(() => new AgentLoop({ provider, stopWhen: stepCountIs(2) as never })).toThrow(
      /write stopWhen: \[yourCondition\]/,
    );
    expect(() => new AgentLoop({ provider, stopWhen: [3] as never })).toThrow(
      /`stopWhen` must be an array of functions/,
    );
    const loop = new AgentLoop({ provider });
    await expect(loop.run("go", { stopWhen: "never" as never })).rejects.toThrow(
      /run\(\): `stopWhen`/,
    );
    expect(() => stepCountIs(0)).toThrow(TypeError);
    expect(() => hasToolCall("")).toThrow(TypeError);
  });
});

describe("timeouts: timeoutMs for a whole run, modelTimeoutMs for each model call", () => {
  it("a run past its timeoutMs is aborted and rejects with RunTimeoutError", async () => {
    const provider = waitingProvider();
    const loop = new AgentLoop({ provider, timeoutMs: 20 });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunTimeoutError);
    expect((error as RunTimeoutError).timeoutMs).toBe(20);
    expect((error as RunTimeoutError).messages).toEqual([{ role: "user", content: "go" }]);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(provider.signals[0]!.reason).toBe(error);
  });

  it("a run's own timeoutMs replaces the loop's; calls that had started are listed on unsettledCalls", async () => {
    let toolSignal: AbortSignal | undefined;
    const hang = tool({
      name: "hang",
      input: z.object({}),
      execute: (_args, ctx) => {
        toolSignal = ctx.signal;
        return new Promise<string>(() => {});
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang", args: {}, id: "h1" }] }]),
      tools: [hang],
      timeoutMs: 60_000,
    });
    const error = await loop.run("go", { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunTimeoutError);
    expect((error as RunTimeoutError).unsettledCalls).toEqual([
      expect.objectContaining({ toolCallId: "h1", toolName: "hang" }),
    ]);
    expect(toolSignal?.aborted).toBe(true);
    expectInvariant((error as RunTimeoutError).messages!);
  });

  it("a model call past modelTimeoutMs is aborted: ModelTimeoutError, a retryable ProviderError", async () => {
    const provider = waitingProvider();
    const loop = new AgentLoop({ provider, modelTimeoutMs: 20 });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ timeoutMs: 20, step: 0, provider: "waiting", retryable: true });
    expect(provider.signals[0]!.reason).toBe(error);
    expect((error as ModelTimeoutError).messages).toEqual([{ role: "user", content: "go" }]);
  });

  it("a provider that ignores its signal times out all the same", async () => {
    const loop = new AgentLoop({ provider: waitingProvider(false), modelTimeoutMs: 20 });
    await expect(loop.run("go")).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it("a provider that gives up with its own error on the timeout's abort still reads as a timeout", async () => {
    const provider = functionProvider(
      (_request, { signal }) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener("abort", () => reject(new Error("fetch aborted"))),
        ),
    );
    const loop = new AgentLoop({ provider, modelTimeoutMs: 20 });
    await expect(loop.run("go")).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it("applies to a streamed model call, and to each call, not to tools", async () => {
    const slowTool = tool({
      name: "slow",
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 60)),
    });
    const provider = scriptedProvider(
      [{ toolCalls: [{ name: "slow", args: {} }] }, { text: "done" }],
      { stream: true },
    );
    const loop = new AgentLoop({ provider, tools: [slowTool], modelTimeoutMs: 20 });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result?.output).toBe("late");
  });

  it("a run's modelTimeoutMs replaces the loop's", async () => {
    const loop = new AgentLoop({ provider: waitingProvider(), modelTimeoutMs: 60_000 });
    const error = await loop.run("go", { modelTimeoutMs: 15 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ModelTimeoutError", timeoutMs: 15 });
  });

  it("the options are checked: positive numbers of milliseconds", async () => {
    const provider = scriptedProvider([]);
    for (const bad of [0, -5, Number.NaN, "20"]) {
      expect(() => new AgentLoop({ provider, timeoutMs: bad as never })).toThrow(
        /`timeoutMs` must be a positive number of milliseconds/,
      );
      expect(() => new AgentLoop({ provider, modelTimeoutMs: bad as never })).toThrow(
        /`modelTimeoutMs` must be a positive number/,
      );
    }
    expect(() => new AgentLoop({ provider, timeout: 5 } as never)).toThrow(/timeoutMs/);
    const loop = new AgentLoop({ provider });
    await expect(loop.run("go", { timeoutMs: 0 })).rejects.toThrow(/run\(\): `timeoutMs`/);
  });

  it("resume() takes timeoutMs too", async () => {
    const { loop } = loopOf([{ toolCalls: [{ name: "send", args: { to: "x" }, id: "s1" }] }]);
    const paused = await loop.run("go");
    const waiting = new AgentLoop({
      provider: waitingProvider(),
      tools: [work, send],
      trustState: true,
    });
    const error = await waiting
      .resume(
        JSON.parse(JSON.stringify(paused.state)),
        { s1: { approve: true } },
        { timeoutMs: 20 },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunTimeoutError);
  });
});
