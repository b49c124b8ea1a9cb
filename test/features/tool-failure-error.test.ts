/**
 * `ToolFailureError`: what a policy's `executeTool` (a durable engine's) throws for a call the
 * model should read as failed though no tool threw in this process — a replayed failure, or a
 * call that started in a process that stopped (outcome unknown).
 */
import { AgentLoop, type LoopEvent, ToolExecutionError, ToolFailureError, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function loopThatThrows(error: unknown, toolErrors: "continue" | "throw" = "continue") {
  const events: LoopEvent[] = [];
  const ran: string[] = [];
  const pay = tool({
    name: "pay",
    description: "Pays",
    input: z.object({}),
    execute: () => {
      ran.push("pay");
      return "paid";
    },
  });
  const loop = new AgentLoop({
    provider: scriptedProvider([{ toolCalls: [{ name: "pay", args: {} }] }, { text: "done" }]),
    tools: [pay],
    toolErrors,
    onEvent: (event) => events.push(event),
    policy: {
      executeTool: () => {
        throw error;
      },
    },
  });
  return { loop, events, ran };
}

describe("ToolFailureError from executeTool", () => {
  it("is the call's error result, with its message; the tool did not run here", async () => {
    const { loop, events, ran } = loopThatThrows(new ToolFailureError("card declined (recorded)"));
    const result = await loop.run("pay");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]).toMatchObject({
      result: { output: "card declined (recorded)", isError: true },
    });
    expect(events.filter((event) => event.type === "tool-error")).toHaveLength(1);
    expect(ran).toEqual([]);
  });

  it("outcome unknown: no tool-error event, and it never rejects the run, also under toolErrors: throw", async () => {
    const unknown = new ToolFailureError(
      "outcome unknown: the process stopped while this call ran",
      {
        outcomeUnknown: true,
      },
    );
    const { loop, events } = loopThatThrows(unknown, "throw");
    const result = await loop.run("pay");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      output: "outcome unknown: the process stopped while this call ran",
      isError: true,
    });
    expect(events.filter((event) => event.type === "tool-error")).toEqual([]);
    expect(unknown.outcomeUnknown).toBe(true);
  });

  it("a replayed failure under toolErrors: throw rejects as the tool's own error would", async () => {
    const { loop } = loopThatThrows(new ToolFailureError("card declined"), "throw");
    await expect(loop.run("pay")).rejects.toBeInstanceOf(ToolExecutionError);
  });

  it("any other error from executeTool is still the policy's failure", async () => {
    const { loop } = loopThatThrows(new Error("bug"));
    await expect(loop.run("pay")).rejects.toThrow(/executeTool/);
  });
});
