import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentLoop, tool } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const City = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: "Oslo", celsius: 21 };

/** A tool that may need approval, counting its executions. */
function sender(needsApproval = true) {
  const sent: string[] = [];
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval,
    execute: ({ to }) => {
      sent.push(to);
      return "sent";
    },
  });
  return { send, sent };
}

/** One step: a call to `send` and the model's final answer, in that order. */
const sendAndAnswer = () =>
  scriptedProvider([
    {
      toolCalls: [
        { name: "send", args: { to: "ada" }, id: "s1" },
        { name: "final_answer", args: oslo, id: "f1" },
      ],
    },
  ]);

describe("a fresh step and a resumed run's first step end in one order", () => {
  it("fresh: the final answer completes the run though a usage limit stopped another call", async () => {
    const { send, sent } = sender(false);
    const loop = new AgentLoop({
      provider: sendAndAnswer(),
      tools: [send],
      output: City,
      limits: { toolCalls: 0 },
    });
    const result = await loop.run("go");
    expect(sent).toEqual([]);
    expect(result.status).toBe("completed");
    expect(result.output).toEqual(oslo);
  });

  it("resumed: the final answer that ran before the pause completes the run though a limit stops the approved call", async () => {
    const store = fileRunStore(mkdtempSync(join(tmpdir(), "tollgate-one-path-")));
    const { send, sent } = sender();
    const first = new AgentLoop({ provider: sendAndAnswer(), tools: [send], output: City, store });
    const paused = await first.run("go");
    expect(paused.status).toBe("needs_approval");
    // The resuming loop has a limit the paused run did not: no tool may run any more.
    const second = new AgentLoop({
      provider: scriptedProvider([]),
      tools: [send],
      output: City,
      store,
      limits: { toolCalls: 0 },
    });
    const result = await second.resume(paused.state.runId, { s1: { approve: true } });
    expect(sent).toEqual([]);
    const call = result.steps[0]!.calls.find((c) => c.toolCallId === "s1")!;
    expect(call.result?.output).toMatch(/not run: limit reached \(toolCalls 0\)/);
    expect(result.status).toBe("completed");
    expect(result.output).toEqual(oslo);
  });
});
