/**
 * `toUIMessageStream` / `toUIMessageStreamResponse` beyond the chat's main path: a sub-agent's
 * approval answered in the chat, args that do not parse, reasoning, what the chat is shown of
 * outputs, a value JSON cannot carry, and options checked.
 */
import { AgentLoop, memoryRunStore, tool } from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import {
  chatResponse,
  toUIMessageStream,
  toUIMessageStreamResponse,
  type UIMessageChunk,
} from "tollgate/ui";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answer, assistantFrom, chatPost, chunksOf, userSays } from "../support/chat-posts.js";
import { researchTeam } from "../support/research-team.js";

async function collect(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

describe("a sub-agent's call in the chat", () => {
  it("is a tool part under its parent call's path, approved in the chat, run once", async () => {
    const log = `${process.env.TMPDIR ?? "/tmp"}/ui-sub-${process.pid}-${Date.now()}.log`;
    const store = memoryRunStore();
    const lead = researchTeam({ log, store });
    const post = async (messages: unknown[]) =>
      chunksOf(await chatResponse(chatPost({ id: "team", messages }), { loop: lead, store }));
    const user = userSays("write the notes");
    const first = await post([user]);
    expect(first).toContainEqual({
      type: "tool-input-available",
      toolCallId: "p1/w1",
      toolName: "write_file",
      input: { path: "notes.md" },
    });
    expect(first.find((chunk) => chunk.type === "tool-approval-request")).toMatchObject({
      toolCallId: "p1/w1",
    });
    const browser = answer(assistantFrom(first), "p1/w1", true);
    const second = await post([user, browser]);
    expect(second).toContainEqual({
      type: "tool-output-available",
      toolCallId: "p1/w1",
      output: "wrote notes.md",
    });
    expect(second).toContainEqual({
      type: "tool-output-available",
      toolCallId: "p1",
      output: "writer: wrote notes.md",
    });
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(log, "utf8")).toBe("write notes.md\n");
    const replay = await chatResponse(chatPost({ id: "team", messages: [user, browser] }), {
      loop: lead,
      store,
    });
    expect(replay.status).toBe(409);
    expect(readFileSync(log, "utf8")).toBe("write notes.md\n");
  });
});

describe("what the stream shows", () => {
  it("args that do not parse are a tool-input-error with the model's text and the error it read", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "add", args: "{not json" }] },
        { text: "sorry" },
      ]),
      tools: [
        tool({
          name: "add",
          description: "Adds",
          input: z.object({ a: z.number() }),
          execute: () => 1,
        }),
      ],
    });
    const chunks = await collect(toUIMessageStream(loop.stream("add")));
    const error = chunks.find((chunk) => chunk.type === "tool-input-error");
    expect(error).toMatchObject({ toolCallId: "call_0_0", toolName: "add", input: "{not json" });
    expect((error as { errorText: string }).errorText).toMatch(/add/);
    expect(chunks.filter((chunk) => chunk.type === "tool-input-available")).toEqual([]);
  });

  it("reasoning and text are separate parts; each part ends before the next starts", async () => {
    const loop = new AgentLoop({
      provider: functionProvider(() => ({ reasoning: "Think.", text: "Answer." }), {
        stream: true,
      }),
    });
    const types = (await collect(toUIMessageStream(loop.stream("q")))).map((chunk) => chunk.type);
    const start = types.indexOf("reasoning-start");
    expect(start).toBeGreaterThan(0);
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-start"));
    expect(types.slice(-3)).toEqual(["text-end", "finish-step", "finish"]);
  });

  it("toolOutput decides what the chat is shown; the model still reads the whole output", async () => {
    const secret = tool({
      name: "account",
      description: "The account",
      input: z.object({}),
      execute: () => ({ name: "Ana", iban: "NO93 8601 1117 947" }),
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "account", args: {} }] },
      { text: "ok" },
    ]);
    const loop = new AgentLoop({ provider, tools: [secret] });
    const toolOutput = (output: unknown) => ({ ...(output as object), iban: "••••" });
    const chunks = await collect(toUIMessageStream(loop.stream("who"), { toolOutput }));
    expect(chunks).toContainEqual({
      type: "tool-output-available",
      toolCallId: "call_0_0",
      output: { name: "Ana", iban: "••••" },
    });
    const read = provider.requests[1]!.messages.at(-1) as { results: { output: unknown }[] };
    expect(read.results[0]!.output).toEqual({ name: "Ana", iban: "NO93 8601 1117 947" });
  });

  it("an output JSON cannot carry ends the stream with an error chunk, then [DONE]", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "big", args: {} }] }, { text: "ok" }]),
      tools: [
        tool({ name: "big", description: "Big", input: z.object({}), execute: () => "fine" }),
      ],
    });
    const response = toUIMessageStreamResponse(loop.stream("go"), {
      toolOutput: () => ({ n: 1n }),
    });
    const chunks = await chunksOf(response);
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "the run failed" });
  });

  it("a new run's start names the message id given; extra headers are kept, the protocol's win", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "hi" }]) });
    const response = toUIMessageStreamResponse(loop.stream("hi"), {
      messageId: "m-1",
      headers: { "x-request-id": "r1", "content-type": "text/plain" },
    });
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect((await chunksOf(response))[0]).toEqual({ type: "start", messageId: "m-1" });
  });

  it("checks its input and options", () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "hi" }]) });
    expect(() => toUIMessageStream(loop.run("hi") as never)).toThrow(
      /expected the events of a run \(an async iterable\), got an object \(a promise: .*not run\(\) or resume\(\)/,
    );
    expect(() =>
      toUIMessageStream(loop.stream("hi"), { errorMessage: () => "x" } as never),
    ).toThrow(/unknown option `errorMessage`; did you mean `errorText`\?/);
    expect(() => toUIMessageStream(loop.stream("hi"), { toolOutput: "x" as never })).toThrow(
      /toolOutput must be a function, got a string/,
    );
  });
});
