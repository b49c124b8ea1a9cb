/**
 * toEventStream's frames carry no state and no signature unless `includeState: true` asks:
 * a state holds every tool output and the transcript, and a signed one is what a resume
 * trusts, so by default it stays on the server.
 */
import { AgentLoop, type LoopEvent, memoryRunStore, toEventStream, tool } from "tollgate";
import { readEventStream, type StreamedEvent } from "tollgate/event-stream";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const SECRET_OUTPUT = "account 12-3456 balance 9000";

/** A run that looks up an account (its output is private), then pauses on a transfer. */
function bank() {
  const lookup = tool({
    name: "lookup",
    input: z.object({}),
    execute: () => SECRET_OUTPUT,
  });
  const transfer = tool({
    name: "transfer",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: () => "sent",
  });
  return new AgentLoop({
    provider: functionProvider(() => ({
      toolCalls: [
        { id: "l1", name: "lookup", args: {} },
        { id: "t1", name: "transfer", args: { to: "bob" } },
      ],
    })),
    tools: [lookup, transfer],
    store: memoryRunStore(),
    signingKey: "k".repeat(32),
  });
}

async function read(response: Response): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const event of readEventStream(response)) events.push(event);
  return events;
}

const finishOf = (events: StreamedEvent[]) => {
  const finish = events.at(-1);
  if (finish?.type !== "run-finish") throw new Error("the stream did not end with run-finish");
  return finish;
};

describe("toEventStream and run states", () => {
  it("by default run-finish carries no state and no signature; the rest of the result is there", async () => {
    const loop = bank();
    const text = await toEventStream(loop.stream("pay bob")).text();
    expect(text).not.toContain('"signature"');
    expect(text).not.toContain('"stateId"');
    const finish = finishOf(await read(toEventStream(bank().stream("pay bob"))));
    expect(finish.result.state).toBeUndefined();
    expect(finish.result).toMatchObject({
      status: "needs_approval",
      pending: [{ toolCallId: "t1", toolName: "transfer", args: { to: "bob" } }],
    });
    expect(finish.result.steps).toHaveLength(1);
  });

  it("a paused sub-run's state is left out of step-finish and run-finish records", async () => {
    const sub = new AgentLoop({
      provider: functionProvider(() => ({
        toolCalls: [{ id: "t1", name: "transfer", args: { to: "bob" } }],
      })),
      tools: [
        tool({
          name: "transfer",
          input: z.object({ to: z.string() }),
          needsApproval: true,
          execute: () => "sent",
        }),
      ],
      signingKey: "sub-key",
      allowReplay: true,
    });
    const makeParent = () =>
      new AgentLoop({
        provider: functionProvider(() => ({
          toolCalls: [{ id: "p1", name: "payer", args: { prompt: "pay bob" } }],
        })),
        tools: [sub.asTool({ name: "payer", description: "Pays" })],
        store: memoryRunStore(),
      });
    // Asked for, the records hold the sub-run's signed state...
    const whole = await read(toEventStream(makeParent().stream("go"), { includeState: true }));
    expect(JSON.stringify(whole)).toContain('"subRun":{"version"');
    // ...and by default they do not.
    const events = await read(toEventStream(makeParent().stream("go")));
    const text = JSON.stringify(events);
    expect(text).not.toContain('"subRun":{"version"');
    expect(text).not.toContain('"signature"');
    const stepFinish = events.find((event) => event.type === "step-finish");
    expect(stepFinish?.type === "step-finish" && stepFinish.record.calls[0]).toMatchObject({
      toolCallId: "p1",
    });
    expect(finishOf(events).result.pending).toMatchObject([
      { toolCallId: "t1", subRun: { path: ["p1"] } },
    ]);
  });

  it("includeState: true sends the events as the loop has them, state and signature", async () => {
    const loop = bank();
    const seen: LoopEvent[] = [];
    loop.on("run-finish", (event) => void seen.push(event));
    const events = await read(toEventStream(loop.stream("pay bob"), { includeState: true }));
    const finish = finishOf(events);
    expect(finish.result.state?.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(finish).toEqual(JSON.parse(JSON.stringify(seen[0])));
    expect(JSON.stringify(finish)).toContain(SECRET_OUTPUT);
  });

  it("includeState must be true or false", () => {
    for (const includeState of ["yes", 1]) {
      expect(() => toEventStream(bank().stream("pay bob"), { includeState } as never)).toThrow(
        "toEventStream(): includeState must be true or false",
      );
    }
  });
});
