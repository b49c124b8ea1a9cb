import { AgentLoop, HookError, type LoopEvent, tool } from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";

const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const script = (stream = false) =>
  scriptedProvider(
    [
      {
        text: "let me",
        toolCalls: [
          { name: "echo", args: { text: "hi" }, id: "c1" },
          { name: "missing", id: "c2" },
        ],
      },
      { reasoning: "done now", text: "said hi" },
    ],
    { stream, chunkSize: 3 },
  );

describe("events", () => {
  it("come in order through onEvent, each carrying the runId", async () => {
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: script(),
      tools: [echo],
      onEvent: (e) => events.push(e),
    });
    const result = await loop.run("go");
    expect(events.map((e) => e.type)).toEqual(
      [
        "run-start",
        "step-start",
        "text-delta",
        "tool-call",
        "tool-call",
        "model-response",
        "tool-call",
        "tool-decision",
        "tool-call",
        "tool-decision",
        "tool-result",
        "tool-result",
        "step-finish",
        "step-start",
        "reasoning-delta",
        "text-delta",
        "model-response",
        "step-finish",
        "run-finish",
      ].filter((type, i) => !(type === "tool-call" && (i === 3 || i === 4))),
    );
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([result.state.runId]));
    expect(events[0]).toMatchObject({ type: "run-start", resumed: false });
    expect(events[1]).toMatchObject({
      type: "step-start",
      step: 0,
      tools: ["echo"],
      callable: ["echo"],
    });
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: "run-finish", status: "completed", usage: result.usage });
    // A frozen copy of the result: equal to it, and nothing a listener does reaches the caller's.
    expect(finish?.type === "run-finish" && finish.result).toEqual(result);
  });

  it("every call gets exactly one tool-call, tool-decision and tool-result", async () => {
    const events: LoopEvent[] = [];
    await new AgentLoop({ provider: script(), tools: [echo], onEvent: (e) => events.push(e) }).run(
      "go",
    );
    for (const type of ["tool-call", "tool-decision", "tool-result"] as const) {
      const ids = events.flatMap((e) => (e.type === type ? [e.toolCallId] : []));
      expect(ids.sort()).toEqual(["c1", "c2"]);
    }
    const decisions = events.filter((e) => e.type === "tool-decision");
    expect(decisions).toMatchObject([
      {
        toolCallId: "c1",
        verdict: "allow",
        by: "default",
        call: { id: "c1", name: "echo", args: { text: "hi" } },
      },
      {
        toolCallId: "c2",
        verdict: "unavailable",
        by: "default",
        reason: expect.stringMatching(/^tool missing is not available/),
      },
    ]);
    const results = events.filter((e) => e.type === "tool-result");
    expect(results).toMatchObject([
      { toolCallId: "c2", isError: true, ms: 0 },
      { toolCallId: "c1", output: "hi", isError: false, ms: expect.any(Number) },
    ]);
  });

  it("streams deltas: text in chunks, reasoning, tool-call deltas by index", async () => {
    const events: LoopEvent[] = [];
    await new AgentLoop({
      provider: script(true),
      tools: [echo],
      onEvent: (e) => events.push(e),
    }).run("go");
    const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
    expect(text).toEqual(["let", " me", "sai", "d h", "i"]);
    const deltas = events.filter((e) => e.type === "tool-call-delta");
    expect(deltas[0]).toMatchObject({ index: 0, id: "c1", name: "echo", argsDelta: "" });
    expect(
      deltas
        .filter((d) => d.type === "tool-call-delta" && d.index === 0)
        .map((d) => (d.type === "tool-call-delta" ? d.argsDelta : ""))
        .join(""),
    ).toBe('{"text":"hi"}');
    expect(
      events
        .filter((e) => e.type === "reasoning-delta")
        .map((e) => (e.type === "reasoning-delta" ? e.text : "")),
    ).toEqual(["don", "e n", "ow"]);
  });

  it("loop.on() listens by type and returns an unsubscribe function", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "a" }, { text: "b" }]) });
    const finishes: string[] = [];
    const off = loop.on("run-finish", (e) => finishes.push(e.result.text));
    await loop.run("1");
    off();
    off();
    await loop.run("2");
    expect(finishes).toEqual(["a"]);
  });

  it("loop.on() refuses an event name no event has, with a did-you-mean, instead of never calling", () => {
    const loop = new AgentLoop({ provider: scriptedProvider([]) });
    expect(() => loop.on("tool-decison" as never, () => {})).toThrow(
      /^on\(\): no event is named "tool-decison"; did you mean "tool-decision"\? the events are "run-start", /,
    );
    expect(() => loop.on(undefined as never, () => {})).toThrow(
      /on\(\): no event is named undefined/,
    );
    // Every event the loop emits can be listened to by name.
    for (const type of ["run-start", "tool-post-decision", "output-delta", "run-error"] as const) {
      loop.on(type, () => {})();
    }
  });

  it("stream() yields the same events as onEvent and ends with run-finish", async () => {
    const heard: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: script(true),
      tools: [echo],
      onEvent: (e) => heard.push(e),
    });
    const streamed: LoopEvent[] = [];
    for await (const event of loop.stream("go")) streamed.push(event);
    expect(streamed).toEqual(heard);
    expect(streamed.at(-1)?.type).toBe("run-finish");
  });

  it("a throwing listener, sync or async, never breaks the run; its error goes to onListenerError", async () => {
    const reported: [unknown, string][] = [];
    const loop = new AgentLoop({
      provider: script(),
      tools: [echo],
      onEvent: (e) => {
        if (e.type === "tool-call") throw new Error("sync listener");
      },
      onListenerError: (error, event) => reported.push([error, event.type]),
    });
    loop.on("tool-result", async () => {
      throw new Error("async listener");
    });
    loop.on("step-start", () => {
      throw "a string";
    });
    const result = await loop.run("go");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(result.status).toBe("completed");
    expect(
      reported
        .map(([error, type]) => [error instanceof Error ? error.message : error, type])
        .sort(),
    ).toEqual(
      [
        ["sync listener", "tool-call"],
        ["sync listener", "tool-call"],
        ["async listener", "tool-result"],
        ["async listener", "tool-result"],
        ["a string", "step-start"],
        ["a string", "step-start"],
      ].sort(),
    );
  });

  it("listener errors go to console.error by default, and a throwing error handler is swallowed", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const loop = new AgentLoop({
        provider: scriptedProvider([{ text: "x" }]),
        onEvent: () => {
          throw new Error("noisy");
        },
      });
      await loop.run("go");
      expect(spy).toHaveBeenCalled();
      const quiet = new AgentLoop({
        provider: scriptedProvider([{ text: "x" }]),
        onEvent: () => {
          throw new Error("a");
        },
        onListenerError: () => {
          throw new Error("b");
        },
      });
      await expect(quiet.run("go")).resolves.toMatchObject({ status: "completed" });
    } finally {
      spy.mockRestore();
    }
  });

  it("a rejected run emits no run-finish; stream() throws the same error after the events before it", async () => {
    const loop = new AgentLoop({
      provider: functionProvider(() => ({ toolCalls: [{ name: "echo", args: { text: "x" } }] })),
      tools: [echo],
      preToolCall: [
        () => {
          throw new Error("no");
        },
      ],
    });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of loop.stream("go")) seen.push(event.type);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HookError);
    expect(seen).toEqual(["run-start", "step-start", "model-response", "tool-call"]);
    const heard: string[] = [];
    loop.on("run-finish", () => heard.push("finish"));
    await expect(loop.run("again")).rejects.toThrow(HookError);
    expect(heard).toEqual([]);
  });

  it("a paused call's tool-result does not come before resume", async () => {
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "x" } }] }]),
      tools: [echo],
      policy: { decideToolCall: () => "NEEDS_APPROVAL" },
      onEvent: (e) => events.push(e),
    });
    const result = await loop.run("go");
    expect(result.status).toBe("needs_approval");
    expect(events.filter((e) => e.type === "tool-result")).toEqual([]);
    expect(events.filter((e) => e.type === "tool-decision")).toMatchObject([
      { verdict: "needs-approval", by: "policy" },
    ]);
  });
  it("a listener added during a run for another type gets its events, frozen (each event asks who listens)", async () => {
    const loop = new AgentLoop({ provider: script(), tools: [echo] });
    const finished: LoopEvent[] = [];
    const results: unknown[] = [];
    loop.on("step-finish", (event) => {
      if (event.step === 0) loop.on("run-finish", (finish) => finished.push(finish));
    });
    loop.on("tool-result", (event) => results.push(event.output));
    const result = await loop.run("go");
    expect(finished).toHaveLength(1);
    const finish = finished[0] as Extract<LoopEvent, { type: "run-finish" }>;
    expect(Object.isFrozen(finish.result)).toBe(true);
    expect(Object.isFrozen(finish.result.messages)).toBe(true);
    expect(finish.result).not.toBe(result);
    expect(finish.result).toEqual(result);
    expect(Object.isFrozen(result.messages)).toBe(false);
    // The unknown tool's error result first (it needs no run), then echo's.
    expect(results).toEqual([expect.stringContaining("tool missing is not available"), "hi"]);
  });
});
