import {
  AgentLoop,
  type LoopEvent,
  type LoopEventOf,
  RetryError,
  ToolExecutionError,
  ToolOutputError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echo } from "../support/echo-tool.js";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

describe("a tool-error event shows the developer what execute threw", () => {
  class DbError extends Error {
    readonly code = "ECONNREFUSED";
  }
  const thrown = new DbError("db down");
  const failing = tool({
    name: "lookup",
    input: z.object({}),
    execute: () => {
      throw thrown;
    },
  });
  const callTwice = () =>
    scriptedProvider([{ toolCalls: [{ name: "lookup", args: {}, id: "c1" }] }, { text: "sorry" }]);

  it("carries the error (same class, fields) and its stack; the model still gets its error result", async () => {
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [failing],
      onEvent: (event) => events.push(event),
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "db down", isError: true });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type.startsWith("tool-"))).toEqual([
      "tool-call",
      "tool-decision",
      "tool-error",
      "tool-result",
    ]);
    const event = events.find((e) => e.type === "tool-error") as LoopEventOf<"tool-error">;
    expect(event).toMatchObject({ step: 0, toolCallId: "c1", toolName: "lookup" });
    expect(event.stack).toBe(thrown.stack);
    expect(event.stack).toContain("db down");
    expect(event.error).toBeInstanceOf(DbError);
    expect(event.error).toMatchObject({ message: "db down", code: "ECONNREFUSED" });
    expect((event.error as Error).stack).toBe(thrown.stack);
  });

  it("listeners get a frozen copy: the tool's own error object is left as it was", async () => {
    let seen: unknown;
    const listenerErrors: unknown[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [failing],
      onListenerError: (error) => listenerErrors.push(error),
    });
    loop.on("tool-error", (event) => {
      seen = event.error;
      (event.error as { message: string }).message = "changed";
    });
    const result = await loop.run("go");
    expect(listenerErrors).toEqual([expect.any(TypeError)]);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(seen).not.toBe(thrown);
    expect(Object.isFrozen(thrown)).toBe(false);
    expect(thrown.message).toBe("db down");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "db down" });
  });

  it('comes under toolErrors: "throw" too, before the run rejects with ToolExecutionError', async () => {
    const seen: string[] = [];
    const loop = new AgentLoop({ provider: callTwice(), tools: [failing], toolErrors: "throw" });
    loop.on("tool-error", (event) => seen.push(String((event.error as Error).message)));
    await expect(loop.run("go")).rejects.toThrow(ToolExecutionError);
    expect(seen).toEqual(["db down"]);
  });

  it("a thrown non-Error is passed as it is, without a stack", async () => {
    const events: LoopEventOf<"tool-error">[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [
        tool({
          name: "lookup",
          input: z.object({}),
          execute: () => {
            throw "plain text";
          },
        }),
      ],
    });
    loop.on("tool-error", (event) => events.push(event));
    await loop.run("go");
    expect(events).toHaveLength(1);
    expect(events[0]!.error).toBe("plain text");
    expect("stack" in events[0]!).toBe(false);
  });

  it("a value JSON cannot carry comes as a ToolOutputError naming the problem", async () => {
    const events: LoopEventOf<"tool-error">[] = [];
    const loop = new AgentLoop({
      provider: callTwice(),
      tools: [tool({ name: "lookup", input: z.object({}), execute: () => ({ n: 1n }) })],
    });
    loop.on("tool-error", (event) => events.push(event));
    await loop.run("go");
    expect(events[0]!.error).toBeInstanceOf(ToolOutputError);
    expect((events[0]!.error as Error).message).toMatch(/JSON cannot carry: .*BigInt/);
  });

  it("a RetryError (meant for the model) and a tool that succeeds give none", async () => {
    const types: string[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "picky", args: {} },
            { name: "echo", args: { text: "a" } },
          ],
        },
        { text: "ok" },
      ]),
      tools: [
        echo,
        tool({
          name: "picky",
          input: z.object({}),
          maxRetries: 3,
          execute: () => {
            throw new RetryError("give a city");
          },
        }),
      ],
      onEvent: (event) => types.push(event.type),
    });
    await loop.run("go");
    expect(types).not.toContain("tool-error");
    expect(types.filter((type) => type === "tool-result")).toHaveLength(2);
  });
});
