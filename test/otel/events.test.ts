import { AgentLoop, type LoopEvent, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * The two things in the event stream that `tollgate/otel` stands on (DESIGN section 7):
 * `step-start` names the step's provider and model, and a run that fails instead of finishing
 * ends with `run-error`, so a listener can close what it opened.
 */

const echo = tool({
  name: "echo",
  description: "Echoes",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe("step-start names the provider and model", () => {
  it("the loop's provider, or the one prepareStep gives a step", async () => {
    const events: LoopEvent[] = [];
    const other = scriptedProvider([{ text: "done" }], { name: "other", model: "other-2" });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "x" } }] }], {
        name: "acme",
        model: "acme-1",
      }),
      tools: [echo],
      policy: {
        prepareStep: ({ stepIndex }) => (stepIndex === 1 ? { provider: other } : undefined),
      },
      onEvent: (event) => events.push(event),
    });
    await loop.run("go");
    const starts = events.flatMap((event) => (event.type === "step-start" ? [event] : []));
    expect(starts.map(({ provider, model }) => [provider, model])).toEqual([
      ["acme", "acme-1"],
      ["other", "other-2"],
    ]);
  });
});

describe("run-error: a failed run's last event", () => {
  it("an abort's DOMException is copied readable: name, message and code of the copy work", async () => {
    const controller = new AbortController();
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: { name: "slow", model: "slow", generate: () => new Promise(() => {}) },
      onEvent: (event) => events.push(event),
    });
    const running = loop.run("hi", { signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    const last = events.at(-1)!;
    if (last.type !== "run-error") throw new Error(`the last event is ${last.type}`);
    const copy = last.error as DOMException;
    expect(copy).not.toBe(controller.signal.reason);
    expect(copy.name).toBe("AbortError");
    expect(copy.message).toBe("This operation was aborted");
    expect(copy.code).toBe(20);
    expect(Object.isFrozen(copy)).toBe(true);
  });

  it("a run that throws ends with one frozen run-error carrying a copy of the error", async () => {
    const events: LoopEvent[] = [];
    const thrown = new TypeError("model down");
    const loop = new AgentLoop({
      provider: scriptedProvider([{ error: thrown }]),
      onEvent: (event) => events.push(event),
    });
    await expect(loop.run("hi")).rejects.toBe(thrown);
    const last = events.at(-1)!;
    expect(last.type).toBe("run-error");
    expect(events.filter((event) => event.type === "run-error")).toHaveLength(1);
    expect(events.some((event) => event.type === "run-finish")).toBe(false);
    if (last.type !== "run-error") throw new Error("unreachable");
    expect(last.error).toBeInstanceOf(TypeError);
    expect(last.error).not.toBe(thrown);
    expect((last.error as Error).message).toBe("model down");
    expect(Object.isFrozen(last)).toBe(true);
  });

  it("an aborted run ends with run-error after the abort silenced everything else; loop.on hears it", async () => {
    const controller = new AbortController();
    const hang = tool({
      name: "hang",
      description: "Waits",
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
          controller.abort(new Error("stop now"));
        }),
    });
    const events: LoopEvent[] = [];
    const heard: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "hang", args: {} }] }]),
      tools: [hang],
      onEvent: (event) => events.push(event),
    });
    loop.on("run-error", (event) => heard.push(event.error));
    await expect(loop.run("go", { signal: controller.signal })).rejects.toThrow("stop now");
    expect(events.at(-1)?.type).toBe("run-error");
    expect(heard).toHaveLength(1);
    expect((heard[0] as Error).message).toBe("stop now");
  });

  it("stream() throws instead of yielding it; a completed run has none", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ error: new Error("boom") }]) });
    const yielded: string[] = [];
    await expect(
      (async () => {
        for await (const event of loop.stream("hi")) yielded.push(event.type);
      })(),
    ).rejects.toThrow("boom");
    expect(yielded).not.toContain("run-error");

    const events: LoopEvent[] = [];
    await new AgentLoop({
      provider: scriptedProvider([{ text: "ok" }]),
      onEvent: (event) => events.push(event),
    }).run("hi");
    expect(events.map((event) => event.type)).not.toContain("run-error");
    expect(events.at(-1)?.type).toBe("run-finish");
  });
});
