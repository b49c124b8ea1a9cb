import { AgentLoop, type ModelStreamPart, TollgateError } from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
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
    expect(error.message).toMatch(/called for step 1 .*but the script has only 1 turn/);
  });

  it("assertComplete() fails on leftover turns and passes when all were used", async () => {
    const provider = scriptedProvider([{ text: "a" }, { text: "b" }]);
    await new AgentLoop({ provider }).run("go");
    expect(() => provider.assertComplete()).toThrow(
      /1 of 2 turn\(s\) were not used \(the next one was for step 1\)/,
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
