import {
  AgentLoop,
  defineProvider,
  type ModelResponse,
  type ModelStreamPart,
  type Provider,
  ProviderError,
  tool,
} from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
const request = { messages: [], tools: [] };

describe("defineProvider", () => {
  it("derives stream from generate: one part per response part, then finish", async () => {
    const response: ModelResponse = {
      parts: [
        { type: "reasoning", text: "think", signature: "sig" },
        { type: "text", text: "hi" },
        { type: "tool-call", id: "c", name: "t", args: "{}" },
      ],
      finishReason: "tool-calls",
      usage,
      raw: { id: 1 },
    };
    const provider = defineProvider({ name: "p", model: "m", generate: async () => response });
    const parts: ModelStreamPart[] = [];
    for await (const part of provider.stream!(request, {})) parts.push(part);
    expect(parts).toEqual([
      { type: "reasoning-delta", text: "think", signature: "sig" },
      { type: "text-delta", text: "hi" },
      { type: "tool-call", id: "c", name: "t", args: "{}" },
      { type: "finish", finishReason: "tool-calls", usage, raw: { id: 1 } },
    ]);
  });

  it("derives generate from stream, assembling tool-call deltas by index (interleaved)", async () => {
    const provider = defineProvider({
      name: "p",
      model: "m",
      stream: async function* () {
        yield { type: "text-delta", text: "a" };
        yield { type: "text-delta", text: "b" };
        yield { type: "tool-call-delta", index: 1, id: "c1", name: "one", argsDelta: '{"x"' };
        yield { type: "tool-call-delta", index: 0, id: "c0", name: "zero", argsDelta: "{" };
        yield { type: "tool-call-delta", index: 1, argsDelta: ":1}" };
        yield { type: "tool-call-delta", index: 0, argsDelta: "}" };
        yield { type: "reasoning-delta", text: "r1" };
        yield { type: "reasoning-delta", text: "", signature: "s1" };
        yield { type: "reasoning-delta", text: "r2" };
        yield { type: "finish", finishReason: "tool-calls", usage };
      },
    });
    expect(await provider.generate(request, {})).toEqual({
      parts: [
        { type: "text", text: "ab" },
        { type: "tool-call", id: "c1", name: "one", args: '{"x":1}' },
        { type: "tool-call", id: "c0", name: "zero", args: "{}" },
        { type: "reasoning", text: "r1", signature: "s1" },
        { type: "reasoning", text: "r2" },
      ],
      finishReason: "tool-calls",
      usage,
    });
  });

  it("keeps each signed reasoning block apart, even a signed block with no text", async () => {
    const provider = defineProvider({
      name: "p",
      model: "m",
      stream: async function* () {
        yield { type: "reasoning-delta", text: "thought" };
        yield { type: "reasoning-delta", text: "", signature: "sig-1" };
        yield { type: "reasoning-delta", text: "", signature: "sig-redacted" };
        yield { type: "finish", finishReason: "stop", usage };
      },
    });
    expect((await provider.generate(request, {})).parts).toEqual([
      { type: "reasoning", text: "thought", signature: "sig-1" },
      { type: "reasoning", text: "", signature: "sig-redacted" },
    ]);
  });

  it("gives calls without an id, or with a repeated id, ids of their own", async () => {
    const provider = defineProvider({
      name: "p",
      model: "m",
      stream: async function* () {
        yield { type: "tool-call", id: "", name: "a", args: "{}" };
        yield { type: "tool-call", id: "same", name: "b", args: "{}" };
        yield { type: "tool-call", id: "same", name: "c", args: "{}" };
        yield { type: "finish", finishReason: "tool-calls", usage };
      },
    });
    const ids = (await provider.generate(request, {})).parts.map((part) =>
      part.type === "tool-call" ? part.id : "",
    );
    expect(ids[0]).toMatch(/^call_/);
    expect(ids[1]).toBe("same");
    expect(ids[2]).toMatch(/^call_/);
    expect(new Set(ids).size).toBe(3);
  });

  it("a derived generate refuses a stream without a finish part, naming the provider", async () => {
    const provider = defineProvider({
      name: "p",
      model: "m",
      stream: async function* () {
        yield { type: "text-delta", text: "x" } as ModelStreamPart;
      },
    });
    const error = await provider.generate(request, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: "p", retryable: false });
    expect((error as Error).message).toBe(
      'provider "p" ended its stream without a finish part; a stream ends with { type: "finish", finishReason, usage }',
    );
  });

  it("needs a name and one of generate and stream", () => {
    expect(() => defineProvider({ name: "p", model: "m" })).toThrow(/generate.*stream/);
    expect(() =>
      defineProvider({
        name: "",
        model: "m",
        generate: async () => ({ parts: [], finishReason: "stop", usage }),
      }),
    ).toThrow(/name/);
  });
});

describe("a custom provider's stream, through the loop", () => {
  const echo = tool({
    name: "echo",
    description: "Echo a text",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
  // A hand-written provider (no defineProvider), so the loop reads the stream exactly as given.
  const streaming = (turns: ModelStreamPart[][]): Provider => {
    let call = 0;
    return {
      name: "hand-made",
      model: "m",
      generate: () => Promise.reject(new Error("the loop streams when it can")),
      async *stream() {
        yield* turns[call++] ?? [];
      },
    };
  };

  it("assembles deltas by index: the first delta of a call carries its id and name", async () => {
    const executed: string[] = [];
    const provider = streaming([
      [
        { type: "tool-call-delta", index: 0, id: "a", name: "echo", argsDelta: '{"te' },
        { type: "tool-call-delta", index: 1, id: "b", name: "echo", argsDelta: '{"text":' },
        { type: "tool-call-delta", index: 0, argsDelta: 'xt":"one"}' },
        { type: "tool-call-delta", index: 1, argsDelta: '"two"}' },
        { type: "finish", finishReason: "tool-calls", usage },
      ],
      [
        { type: "text-delta", text: "done" },
        { type: "finish", finishReason: "stop", usage },
      ],
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [echo],
      onEvent: (event) => {
        if (event.type === "tool-result") executed.push(`${event.toolCallId}:${event.output}`);
      },
    });
    const result = await loop.run("go");
    expect(result.text).toBe("done");
    expect(executed.sort()).toEqual(["a:one", "b:two"]);
    expect(result.usage).toMatchObject({ inputTokens: 2, outputTokens: 4, totalTokens: 6 });
  });

  it("a stream that ends without a finish part rejects the run with ProviderError", async () => {
    const provider = streaming([[{ type: "text-delta", text: "half an ans" }]]);
    const loop = new AgentLoop({ provider, tools: [echo] });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: "hand-made", retryable: false });
    expect((error as Error).message).toMatch(
      /^provider "hand-made" ended its stream without a finish part/,
    );
  });

  it("a part after the finish part rejects the run with ProviderError", async () => {
    const provider = streaming([
      [
        { type: "finish", finishReason: "stop", usage },
        { type: "text-delta", text: "late" },
      ],
    ]);
    const loop = new AgentLoop({ provider, tools: [echo] });
    await expect(loop.run("go")).rejects.toThrow(
      'provider "hand-made" sent a text-delta part after its finish part; finish comes last',
    );
  });

  it("a tool call cut before its finish never runs", async () => {
    let ran = false;
    const guarded = tool({
      name: "echo",
      description: "Echo a text",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => {
        ran = true;
        return text;
      },
    });
    const provider = streaming([
      [{ type: "tool-call-delta", index: 0, id: "a", name: "echo", argsDelta: '{"text":"x"}' }],
    ]);
    await expect(new AgentLoop({ provider, tools: [guarded] }).run("go")).rejects.toBeInstanceOf(
      ProviderError,
    );
    expect(ran).toBe(false);
  });
});

describe("a generate()-only provider that answers wrongly, through the loop", () => {
  const answering = (answer: unknown) => ({
    name: "gen-only",
    model: "m",
    generate: async () => answer as ModelResponse,
  });
  const cases: [string, unknown, string][] = [
    [
      "not a ModelResponse",
      { text: "hi" },
      'provider "gen-only" answered generate() with {"text":"hi"}; a ModelResponse is { parts: [...], finishReason, usage }',
    ],
    [
      "nothing",
      undefined,
      'provider "gen-only" answered generate() with undefined; a ModelResponse is { parts: [...], finishReason, usage }',
    ],
    [
      "a part of a type a response has not",
      { parts: [{ type: "txt", text: "hi" }], finishReason: "stop", usage },
      'provider "gen-only" answered generate() with parts[0] of type "txt"; a response part is { type: "text" | "reasoning" | "tool-call", ... }',
    ],
  ];
  for (const [what, answer, message] of cases) {
    it(`${what}: ProviderError naming the provider, as a plain object or through defineProvider`, async () => {
      for (const provider of [answering(answer), defineProvider(answering(answer))]) {
        const run = new AgentLoop({ provider }).run("hi");
        await expect(run).rejects.toBeInstanceOf(ProviderError);
        await expect(run).rejects.toThrow(message);
      }
    });
  }
});
