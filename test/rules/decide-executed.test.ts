import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { expect, it } from "vitest";
import { z } from "zod";

it("decideToolCall gets the run's executed tools of earlier steps, as a copy", async () => {
  const seen: string[][] = [];
  const ping = tool({ name: "ping", description: "p", input: z.object({}), execute: () => "pong" });
  const loop = new AgentLoop({
    provider: scriptedProvider([
      {
        toolCalls: [
          { name: "ping", args: {} },
          { name: "ping", args: {} },
        ],
      },
      { toolCalls: [{ name: "ping", args: {} }] },
      { text: "done" },
    ]),
    tools: [ping],
    policy: {
      decideToolCall({ executed }) {
        seen.push(executed);
        executed.push("forged"); // a copy: the run's own list is untouched
        return "ALLOW";
      },
    },
  });
  const result = await loop.run("go");
  expect(result.status).toBe("completed");
  // Calls of one step are gated before any of them runs: both see the same history.
  expect(seen).toEqual([["forged"], ["forged"], ["ping", "ping", "forged"]]);
  expect(result.state.executed).toEqual(["ping", "ping", "ping"]);
});
