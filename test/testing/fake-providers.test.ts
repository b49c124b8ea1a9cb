import { AgentLoop, jsonSchema, type ModelStreamPart, TollgateError, tool } from "tollgate";
import { autoProvider, functionProvider, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";

const collect = async (stream: AsyncIterable<ModelStreamPart>) => {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
};

describe("scriptedProvider", () => {
  it('is named "scripted" (model "scripted") and answers turns in order, recording each request', async () => {
    const provider = scriptedProvider([
      { text: "one" },
      {
        toolCalls: [
          { name: "t", args: { a: 1 } },
          { name: "u", args: "{raw", id: "mine" },
        ],
      },
    ]);
    expect([provider.name, provider.model]).toEqual(["scripted", "scripted"]);
    const request = { messages: [], tools: [] };
    expect(await provider.generate(request, {})).toEqual({
      parts: [{ type: "text", text: "one" }],
      finishReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
    const second = await provider.generate(request, {});
    expect(second.parts).toEqual([
      { type: "tool-call", id: "call_1_0", name: "t", args: '{"a":1}' },
      { type: "tool-call", id: "mine", name: "u", args: "{raw" },
    ]);
    expect(second.finishReason).toBe("tool-calls");
    expect(provider.requests).toEqual([request, request]);
    expect(provider.remaining).toBe(0);
  });

  it("running past the script fails with a message naming the step", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "nothing" }] }]);
    const loop = new AgentLoop({ provider, maxRetries: 5 });
    const error = await loop.run("go").catch((e) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error.message).toMatch(
      /called for step 1 of run \S+ \(the provider's call #2\), but the script has only 1 turn/,
    );
  });

  it("assertComplete() fails on leftover turns and passes when all were used", async () => {
    const provider = scriptedProvider([{ text: "a" }, { text: "b" }]);
    await new AgentLoop({ provider }).run("go");
    expect(() => provider.assertComplete()).toThrow(
      /1 of 2 turn\(s\) were not used \(the next one was turn #2\)/,
    );
    await new AgentLoop({ provider }).run("again");
    expect(() => provider.assertComplete()).not.toThrow();
  });

  it("an { error } turn throws the error as given, and it reaches the caller unchanged", async () => {
    const boom = new RangeError("rate limited");
    const provider = scriptedProvider([{ error: boom }]);
    await expect(new AgentLoop({ provider }).run("go")).rejects.toBe(boom);
  });

  it("a function turn answers from the request", async () => {
    const provider = scriptedProvider([
      (request) => ({ text: `you said ${(request.messages[0] as { content: string }).content}` }),
    ]);
    expect((await new AgentLoop({ provider }).run("hello")).text).toBe("you said hello");
  });

  it("usage defaults to zero and totals the given counts", async () => {
    const provider = scriptedProvider([
      { text: "a", usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 1 } },
    ]);
    expect((await provider.generate({ messages: [], tools: [] }, {})).usage).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
      cachedInputTokens: 1,
    });
  });

  it("can stream: text in chunks, tool-call args in fragments keyed by index, then finish", async () => {
    const provider = scriptedProvider(
      [
        {
          reasoning: "hmm",
          text: "hello",
          toolCalls: [{ name: "a", args: { x: 1 } }, { name: "b" }],
        },
      ],
      { stream: true, chunkSize: 2 },
    );
    const parts = await collect(provider.stream!({ messages: [], tools: [] }, {}));
    expect(parts).toEqual([
      { type: "reasoning-delta", text: "hm" },
      { type: "reasoning-delta", text: "m" },
      { type: "text-delta", text: "he" },
      { type: "text-delta", text: "ll" },
      { type: "text-delta", text: "o" },
      { type: "tool-call-delta", index: 0, id: "call_0_0", name: "a", argsDelta: "" },
      { type: "tool-call-delta", index: 0, argsDelta: '{"' },
      { type: "tool-call-delta", index: 0, argsDelta: 'x"' },
      { type: "tool-call-delta", index: 0, argsDelta: ":1" },
      { type: "tool-call-delta", index: 0, argsDelta: "}" },
      { type: "tool-call-delta", index: 1, id: "call_0_1", name: "b", argsDelta: "" },
      { type: "tool-call-delta", index: 1, argsDelta: "{}" },
      {
        type: "finish",
        finishReason: "tool-calls",
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      },
    ]);
  });

  it("streamed and whole answers give the loop the same transcript", async () => {
    const turns = [
      { text: "calling", toolCalls: [{ name: "nope", args: { q: "x" }, id: "n1" }] },
      { text: "done" },
    ];
    const whole = await new AgentLoop({ provider: scriptedProvider(turns), maxRetries: 3 }).run(
      "go",
    );
    const streamed = await new AgentLoop({
      provider: scriptedProvider(turns, { stream: true, chunkSize: 1 }),
      maxRetries: 3,
    }).run("go");
    expect(streamed.messages).toEqual(whole.messages);
  });

  it("rejects a script that is not an array and a bad chunkSize", () => {
    expect(() => scriptedProvider({} as never)).toThrow(TypeError);
    expect(() => scriptedProvider([], { chunkSize: 0 })).toThrow(/chunkSize/);
  });
});

describe("functionProvider", () => {
  it("answers with a reply or a whole ModelResponse, with the call count and signal", async () => {
    const infos: number[] = [];
    const provider = functionProvider((_request, { step, signal }) => {
      infos.push(step);
      expect(signal).toBeInstanceOf(AbortSignal);
      return step === 0
        ? { toolCalls: [{ name: "missing" }] }
        : {
            parts: [{ type: "text", text: "whole" }],
            finishReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          };
    });
    const result = await new AgentLoop({ provider, maxRetries: 2 }).run("go");
    expect(result.text).toBe("whole");
    expect(infos).toEqual([0, 1]);
    expect(provider.requests).toHaveLength(2);
    expect([provider.name, provider.model]).toEqual(["function", "function"]);
  });

  it("can stream", async () => {
    const provider = functionProvider(() => ({ text: "abcdef" }), { stream: true, chunkSize: 4 });
    const deltas: string[] = [];
    await new AgentLoop({
      provider,
      onEvent: (e) => {
        if (e.type === "text-delta") deltas.push(e.text);
      },
    }).run("go");
    expect(deltas).toEqual(["abcd", "ef"]);
  });
});

describe("fakes count steps per run", () => {
  const none = jsonSchema({ type: "object", properties: {} });
  const ping = tool({ name: "ping", description: "p", input: none, execute: () => "pong" });
  const approved = tool({
    name: "send",
    description: "needs a human",
    input: none,
    needsApproval: true,
    execute: () => "sent",
  });

  it("a scriptedProvider reused for two runs keeps consuming its script, with each run's own steps in ids and messages", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "ping" }] },
      { text: "first done" },
      { toolCalls: [{ name: "ping" }] },
    ]);
    const loop = new AgentLoop({ provider, tools: [ping] });
    const first = await loop.run("one");
    const second = await loop.run("two").catch((e) => e);
    expect(first.text).toBe("first done");
    // The second run's step 0 took turn 3, and its call id counts from its own step 0.
    expect(provider.remaining).toBe(0);
    expect(first.steps[0]!.calls[0]!.toolCallId).toBe("call_0_0");
    expect(second).toBeInstanceOf(TollgateError);
    expect(second.message).toMatch(/called for step 1 of run \S+ \(the provider's call #4\)/);
  });

  it("functionProvider's info.step is the run's step (0 at the start of each run); info.call counts every call", async () => {
    const seen: Array<[string | undefined, number, number]> = [];
    const provider = functionProvider((request, { runId, step, call }) => {
      seen.push([runId, step, call]);
      return request.messages.at(-1)!.role === "user"
        ? { toolCalls: [{ name: "ping" }] }
        : { text: "ok" };
    });
    const loop = new AgentLoop({ provider, tools: [ping] });
    const a = await loop.run("a");
    const b = await loop.run("b");
    expect(seen).toEqual([
      [a.state.runId, 0, 0],
      [a.state.runId, 1, 1],
      [b.state.runId, 0, 2],
      [b.state.runId, 1, 3],
    ]);
    expect(a.state.runId).not.toBe(b.state.runId);
    // Ids are per run: both runs' first call is call_0_0.
    expect([a.steps[0]!.calls[0]!.toolCallId, b.steps[0]!.calls[0]!.toolCallId]).toEqual([
      "call_0_0",
      "call_0_0",
    ]);
  });

  it("a paused-then-resumed run goes on counting its own steps", async () => {
    const seen: Array<[string | undefined, number]> = [];
    const provider = functionProvider((request, { runId, step }) => {
      seen.push([runId, step]);
      return request.messages.at(-1)!.role === "user"
        ? { toolCalls: [{ name: "send" }] }
        : { text: "done" };
    });
    const loop = new AgentLoop({ provider, tools: [approved], trustState: true });
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const other = await new AgentLoop({ provider: functionProvider(() => ({ text: "x" })) }).run(
      "x",
    );
    const resumed = await loop.resume(paused.state, { call_0_0: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(other.status).toBe("completed");
    expect(seen).toEqual([
      [paused.state.runId, 0],
      [paused.state.runId, 1],
    ]);
    expect(resumed.text).toBe("done");
  });

  it("called outside a loop (no step given), ids and steps follow the provider's calls", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "a" }] },
      { toolCalls: [{ name: "a" }] },
    ]);
    const first = await provider.generate({ messages: [], tools: [] }, {});
    const second = await provider.generate({ messages: [], tools: [] }, { step: 7, runId: "r" });
    expect(first.parts[0]).toMatchObject({ id: "call_0_0" });
    expect(second.parts[0]).toMatchObject({ id: "call_7_0" });
  });
});

describe("the fakes check their options", () => {
  it("an unknown option is a TypeError with a did-you-mean, for every fake", () => {
    expect(() => scriptedProvider([], { strem: true } as never)).toThrow(
      /scriptedProvider: unknown option `strem`; did you mean `stream`\?/,
    );
    expect(() => functionProvider(() => ({ text: "" }), { modle: "x" } as never)).toThrow(
      /functionProvider: unknown option `modle`; did you mean `model`\?/,
    );
    expect(() => autoProvider({ sead: 2 } as never)).toThrow(
      /autoProvider: unknown option `sead`; did you mean `seed`\?/,
    );
  });
});

describe("the fakes check their replies", () => {
  const run = (provider: ReturnType<typeof functionProvider>) =>
    new AgentLoop({ provider, tools: [] }).run("go");

  it("a scripted turn with a misspelt key is a TypeError when the script is made, not an empty answer", () => {
    expect(() => scriptedProvider([{ text: "ok" }, { txt: "typo" } as never])).toThrow(
      /scriptedProvider: turn #2: unknown option `txt`; did you mean `text`\?/,
    );
    expect(() =>
      scriptedProvider([{ toolCalls: [{ name: "t", arguments: { a: 1 } }] } as never]),
    ).toThrow(/turn #1: toolCalls\[0\]: unknown option `arguments`; did you mean `args`\?/);
    expect(() => scriptedProvider([{ toolCalls: [{ args: {} }] } as never])).toThrow(
      /toolCalls\[0\]: `name` must be the tool's name, a string, got undefined/,
    );
    expect(() => scriptedProvider([{ text: 42 } as never])).toThrow(/`text` must be a string/);
    expect(() => scriptedProvider([{ toolCalls: { name: "t" } } as never])).toThrow(
      /`toolCalls` must be an array, got an object/,
    );
  });

  it("a turn that is not an object, or an error turn with more, is a TypeError that says what a turn is", () => {
    expect(() => scriptedProvider(["hello" as never])).toThrow(
      /turn #1: expected a reply \{ text\?, reasoning\?, toolCalls\?, finishReason\?, usage\? \} or a ModelResponse .*got a string/,
    );
    expect(() => scriptedProvider([null as never])).toThrow(/turn #1: .*got null/);
    expect(() => scriptedProvider([{ error: new Error("x"), text: "y" } as never])).toThrow(
      /turn #1: an error turn is \{ error \} alone; it also has `text`/,
    );
  });

  it("a function's answer is checked when it answers: a forgotten return or a typo fails the run", async () => {
    await expect(run(functionProvider((() => undefined) as never))).rejects.toThrow(
      /functionProvider: the answer for step 0: expected a reply .*got undefined/,
    );
    await expect(run(functionProvider(() => ({ txt: "x" }) as never))).rejects.toThrow(
      /functionProvider: the answer for step 0: unknown option `txt`; did you mean `text`\?/,
    );
    const scripted = scriptedProvider([() => ({ tool_calls: [] }) as never]);
    await expect(run(scripted)).rejects.toThrow(
      /scriptedProvider: the answer for step 0: unknown option `tool_calls`; did you mean `toolCalls`\?/,
    );
  });

  it("scripted args JSON cannot write are a TypeError naming the call, not a bare serializer error", async () => {
    const provider = functionProvider(() => ({ toolCalls: [{ name: "t", args: { n: 1n } }] }));
    await expect(run(provider)).rejects.toThrow(
      /^functionProvider: the answer for step 0: toolCalls\[0\]\.args cannot be written as JSON \(Do not know how to serialize a BigInt\)$/,
    );
  });

  it("a whole ModelResponse passes to the loop, which checks it as any provider's answer", async () => {
    const good = functionProvider(() => ({
      parts: [{ type: "text", text: "hi" }],
      finishReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    }));
    expect((await run(good)).text).toBe("hi");
    const bad = functionProvider(() => ({ parts: "hi" }) as never);
    await expect(run(bad)).rejects.toThrow(/a ModelResponse is \{ parts: \[\.\.\.\]/);
  });
});
