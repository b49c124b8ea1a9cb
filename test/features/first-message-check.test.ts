import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

/**
 * The state's message schema loads the first time `prepareStep`, a pre-model hook or a
 * handoff's input filter is about to be asked in a process. Each test here gets fresh modules
 * (`vi.resetModules()`), so each meets that first time: the messages are still checked, and a
 * run aborted while the schema loads asks no user code.
 */
let tollgate: typeof import("tollgate");
let testing: typeof import("tollgate/testing");

beforeEach(async () => {
  vi.resetModules();
  tollgate = await import("tollgate");
  testing = await import("tollgate/testing");
});

const BAD = [{ role: "robot", content: "?" }];

function echo() {
  return tollgate.tool({
    name: "echo",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
}

/** A handoff from "triage" to "support" with `inputFilter`; triage's model hands off at once. */
function handoffLoops(inputFilter: () => unknown) {
  const support = new tollgate.AgentLoop({
    name: "support",
    provider: testing.scriptedProvider([{ text: "support here" }]),
  });
  return new tollgate.AgentLoop({
    name: "triage",
    provider: testing.scriptedProvider([
      { toolCalls: [{ name: "echo", args: { text: "hi" } }] },
      { toolCalls: [{ name: "transfer_to_support", args: {} }] },
    ]),
    tools: [echo()],
    handoffs: [tollgate.handoff(support, { inputFilter: inputFilter as never })],
  });
}

describe("the first message check of a process", () => {
  it("prepareStep's messages are checked the first time too", async () => {
    const loop = new tollgate.AgentLoop({
      provider: testing.scriptedProvider([{ text: "x" }]),
      policy: { prepareStep: () => ({ messages: BAD as never }) },
    });
    await expect(loop.run("go")).rejects.toThrow(
      /prepareStep returned messages that fail: \[0\]\.role/,
    );
  });

  it("a pre-model hook's messages are checked the first time too", async () => {
    const loop = new tollgate.AgentLoop({
      provider: testing.scriptedProvider([{ text: "x" }]),
      preModelCall: [() => ({ messages: BAD as never })],
    });
    await expect(loop.run("go")).rejects.toThrow(/returned messages that fail: \[0\]\.role/);
  });

  it("a handoff filter's messages are checked the first time too", async () => {
    const loop = handoffLoops(() => BAD);
    await expect(loop.run("go")).rejects.toThrow(
      /inputFilter \(tool transfer_to_support\) returned messages that fail/,
    );
  });

  /** The loop options whose callback `ask` is the first to need the schema. */
  const askers: [string, (ask: () => undefined) => Record<string, unknown>][] = [
    ["prepareStep", (ask) => ({ policy: { prepareStep: ask } })],
    ["a pre-model hook", (ask) => ({ preModelCall: [ask] })],
  ];

  it.each(askers)("a run aborted while the schema loads never asks %s", async (_, options) => {
    let asked = 0;
    const loop = new tollgate.AgentLoop({
      provider: testing.scriptedProvider([{ text: "x" }]),
      ...options(() => {
        asked++;
        return undefined;
      }),
    });
    const controller = new AbortController();
    const run = loop.run("go", { signal: controller.signal });
    controller.abort(new Error("stop now"));
    await expect(run).rejects.toThrow("stop now");
    await new Promise((resolve) => setTimeout(resolve, 20)); // the load has settled by now
    expect(asked).toBe(0);
  });
});
