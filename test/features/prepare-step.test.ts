import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

describe("prepareStep's arguments", () => {
  it("messages and steps are copied only when read (a copy of the whole transcript each step made a long run quadratic)", async () => {
    const echo = tool({ name: "echo", input: z.object({}), execute: () => "ok" });
    const seen: { lazy: boolean; messages: number; steps: number }[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: {} }] }, { text: "done" }]),
      tools: [echo],
      policy: {
        prepareStep: (args) => {
          const lazy = ["messages", "steps"].every(
            (key) => typeof Object.getOwnPropertyDescriptor(args, key)?.get === "function",
          );
          seen.push({ lazy, messages: args.messages.length, steps: args.steps.length });
          args.messages.pop(); // a copy: the run's transcript is not changed
        },
      },
    });
    const result = await loop.run("go");
    expect(seen).toEqual([
      { lazy: true, messages: 1, steps: 0 },
      { lazy: true, messages: 3, steps: 1 },
    ]);
    expect(result.messages).toHaveLength(4);
  });
});
