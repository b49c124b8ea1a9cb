import { defineProvider, type ModelResponse, type ModelStreamPart } from "tollgate";
import { describe, expect, it } from "vitest";

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

  it("a stream without a finish part ends as 'other' with zero usage", async () => {
    const provider = defineProvider({
      name: "p",
      model: "m",
      stream: async function* () {
        yield { type: "text-delta", text: "x" } as ModelStreamPart;
      },
    });
    expect(await provider.generate(request, {})).toMatchObject({
      finishReason: "other",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
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
