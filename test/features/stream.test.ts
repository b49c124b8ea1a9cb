/**
 * `loop.stream()` read by hand, as an async generator is read: `next()` calls that do not wait
 * for each other, `return()` and `throw()` at every point of a run, a second reading, and no
 * rejection left unhandled.
 */
import { AgentLoop, HookError, type LoopEvent, memoryRunStore, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hangingTool } from "../support/hanging-tool.js";
import { collectUnhandledRejections } from "../support/unhandled.js";

/** Resolves on the next macrotask: every promise chain already under way has settled. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

function twoStepLoop(onEvent?: (event: LoopEvent) => void) {
  // Two runs' worth of turns: a tool call, then the answer.
  const run = [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, { text: "done" }];
  const provider = scriptedProvider([...run, ...run], { stream: true });
  return {
    provider,
    loop: new AgentLoop({ provider, tools: [echo], ...(onEvent ? { onEvent } : {}) }),
  };
}

async function readAll(events: AsyncIterable<LoopEvent>): Promise<LoopEvent[]> {
  const read: LoopEvent[] = [];
  for await (const event of events) read.push(event);
  return read;
}

describe("loop.stream() read by hand", () => {
  const unhandled = collectUnhandledRejections();

  it("next() calls made without waiting get the events in call order, then done, as for await gets them", async () => {
    const heard: LoopEvent[] = [];
    const { loop } = twoStepLoop((event) => heard.push(event));
    const expected = await readAll(loop.stream("go"));
    heard.length = 0;
    const events = loop.stream("go");
    const results = await Promise.all(
      Array.from({ length: expected.length + 3 }, () => events.next()),
    );
    const values = results.filter((r) => !r.done).map((r) => r.value as LoopEvent);
    expect(results.slice(expected.length).every((r) => r.done)).toBe(true);
    const shape = (list: LoopEvent[]) => list.map((e) => e.type);
    expect(shape(values)).toEqual(shape(expected));
    expect(values.at(-1)?.type).toBe("run-finish");
    expect(values).toEqual(heard);
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it("the run starts on the first next(): return() or throw() before it calls no model", async () => {
    const { loop, provider } = twoStepLoop();
    const stopped = loop.stream("go");
    expect(await stopped.return(undefined)).toEqual({ value: undefined, done: true });
    expect(await stopped.next()).toEqual({ value: undefined, done: true });
    const thrown = loop.stream("go");
    const reason = new Error("not wanted");
    await expect(thrown.throw(reason)).rejects.toBe(reason);
    expect(await thrown.next()).toEqual({ value: undefined, done: true });
    expect(provider.requests).toHaveLength(0);
  });

  it("return() while a next() waits abandons the run at once; the waiting next() resolves as done", async () => {
    const { hang, state } = hangingTool();
    let emitted = 0;
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
      onEvent: () => emitted++,
    });
    const events = loop.stream("go");
    const seen: string[] = [];
    const first = await events.next();
    if (!first.done) seen.push(first.value.type);
    await state.started;
    await nextTurn();
    // Read what the run emitted up to its tool's start; the next next() then waits.
    while (seen.length < emitted) {
      const next = await events.next();
      if (!next.done) seen.push(next.value.type);
    }
    expect(seen.at(-1)).toBe("tool-decision");
    const waiting = events.next();
    expect(await events.return(undefined)).toEqual({ value: undefined, done: true });
    expect(state.signal?.aborted).toBe(true);
    expect(state.signal?.reason).toMatchObject({ name: "AbortError" });
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(await events.next()).toEqual({ value: undefined, done: true });
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it("a reader that stops at run-finish leaves the finished run alone: no run-error, no signal aborted", async () => {
    for (const store of [undefined, memoryRunStore()]) {
      const heard: string[] = [];
      const signals: AbortSignal[] = [];
      const keep = tool({
        name: "keep",
        input: z.object({}),
        execute: (_args, ctx) => {
          signals.push(ctx.signal);
          return "kept";
        },
      });
      const loop = new AgentLoop({
        provider: scriptedProvider([{ toolCalls: [{ name: "keep" }] }, { text: "done" }]),
        tools: [keep],
        onEvent: (event) => heard.push(event.type),
        ...(store ? { store } : {}),
      });
      let finish: LoopEvent | undefined;
      for await (const event of loop.stream("go")) {
        if (event.type === "run-finish") {
          finish = event;
          break;
        }
      }
      await nextTurn();
      expect(finish).toMatchObject({ status: "completed" });
      expect(heard.at(-1)).toBe("run-finish");
      expect(heard).not.toContain("run-error");
      expect(signals).toHaveLength(1);
      expect(signals[0]?.aborted).toBe(false);
    }
    expect(unhandled).toEqual([]);
  });

  it("throw() mid-run rejects with its error, abandons the run, and ends the stream", async () => {
    const { hang, state } = hangingTool();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
    });
    const events = loop.stream("go");
    expect((await events.next()).value).toMatchObject({ type: "run-start" });
    await state.started;
    const reason = new Error("stop reading");
    await expect(events.throw(reason)).rejects.toBe(reason);
    expect(state.signal?.aborted).toBe(true);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it("the run's error comes after the events before it, once; then the stream is done", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "x" } }] }]),
      tools: [echo],
      preToolCall: [
        () => {
          throw new Error("no");
        },
      ],
    });
    const events = loop.stream("go");
    // Let the run fail before anything is read: its events wait, its error after them.
    expect((await events.next()).value).toMatchObject({ type: "run-start" });
    await nextTurn();
    const types: string[] = [];
    let caught: unknown;
    for (;;) {
      try {
        const next = await events.next();
        if (next.done) break;
        types.push(next.value.type);
      } catch (error) {
        caught = error;
        break;
      }
    }
    expect(types).toEqual(["step-start", "model-response", "tool-call"]);
    expect(caught).toBeInstanceOf(HookError);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(unhandled).toEqual([]);
  });

  it("a stream read to its end reads as done a second time; a new stream() is a new run", async () => {
    const { loop, provider } = twoStepLoop();
    const events = loop.stream("go");
    const first = await readAll(events);
    expect(first.at(-1)?.type).toBe("run-finish");
    expect(await readAll(events)).toEqual([]);
    const again = await readAll(loop.stream("go"));
    expect(again.map((e) => e.type)).toEqual(first.map((e) => e.type));
    expect(again[0]?.runId).not.toBe(first[0]?.runId);
    expect(provider.requests).toHaveLength(4);
  });

  it("a stream stopped with break is done when read again, and its abandoned run leaves no unhandled rejection", async () => {
    const { hang, state } = hangingTool();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang" }] }]),
      tools: [hang],
    });
    const events = loop.stream("go");
    for await (const event of events) if (event.type === "tool-call") break;
    await state.started;
    expect(state.signal?.aborted).toBe(true);
    expect(await readAll(events)).toEqual([]);
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it("bad input rejects the first next() only; the stream is then done", async () => {
    const { loop, provider } = twoStepLoop();
    const events = loop.stream("go", { maxSteps: -1 });
    await expect(events.next()).rejects.toThrow(TypeError);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(provider.requests).toHaveLength(0);
  });

  it("is its own async iterator, and can be closed with await using's dispose where the runtime has it", async () => {
    const { loop } = twoStepLoop();
    const events = loop.stream("go");
    expect(events[Symbol.asyncIterator]()).toBe(events);
    const dispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
    const own = (async function* () {})();
    if (dispose !== undefined && dispose in own) {
      await (events as unknown as Record<symbol, () => Promise<void>>)[dispose]!();
      expect(await events.next()).toEqual({ value: undefined, done: true });
    }
  });
});
