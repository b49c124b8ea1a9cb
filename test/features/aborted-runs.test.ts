import { AgentLoop, type AgentLoopOptions, abortedRunsOf, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { deferred } from "../support/deferred.js";

describe("an aborted run's transcript and unsettled calls", () => {
  /** `wait` starts and never settles by itself (it ignores its signal). */
  function waitingAgent(options: Partial<AgentLoopOptions> = {}) {
    const started = deferred();
    const wait = tool({
      name: "wait",
      input: z.object({ for: z.string() }),
      execute: () => {
        started.resolve();
        return new Promise<string>(() => {});
      },
    });
    const provider = scriptedProvider([
      { text: "Waiting.", toolCalls: [{ name: "wait", args: { for: "bob" }, id: "w1" }] },
    ]);
    return { loop: new AgentLoop({ provider, tools: [wait], ...options }), started };
  }

  it("the run rejects with the signal's reason, and abortedRunsOf(reason) gives its messages and unsettledCalls", async () => {
    const { loop, started } = waitingAgent();
    const controller = new AbortController();
    const run = loop.run("Wait for Bob", { signal: controller.signal, runId: "run-3" });
    await started.promise;
    controller.abort();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    const [aborted, ...others] = abortedRunsOf(error);
    expect(others).toEqual([]);
    expect(aborted!.runId).toBe("run-3");
    expect(aborted!.messages).toEqual([
      { role: "user", content: "Wait for Bob" },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "Waiting." },
          { type: "tool-call", id: "w1", name: "wait", args: '{"for":"bob"}' },
        ],
      },
      {
        role: "tool",
        results: [
          {
            toolCallId: "w1",
            toolName: "wait",
            output:
              "outcome unknown: the run failed while this call ran (This operation was aborted)",
            isError: true,
          },
        ],
      },
    ]);
    const unsettled = [
      { runId: "run-3", toolCallId: "w1", toolName: "wait", args: { for: "bob" } },
    ];
    expect(aborted!.unsettledCalls).toEqual(unsettled);
    expect((error as { unsettledCalls?: unknown }).unsettledCalls).toEqual(unsettled);
  });

  it("a reason shared by several runs (the loop's own signal) keeps each run's own transcript", async () => {
    const controller = new AbortController();
    const a = waitingAgent({ signal: controller.signal });
    const b = waitingAgent({ signal: controller.signal });
    const runs = [
      a.loop.run("Ana's run", { runId: "ana" }).catch((e: unknown) => e),
      b.loop.run("Ben's run", { runId: "ben" }).catch((e: unknown) => e),
    ];
    await Promise.all([a.started.promise, b.started.promise]);
    controller.abort(new Error("shutting down"));
    const [ana, ben] = await Promise.all(runs);
    expect(ana).toBe(controller.signal.reason);
    expect(ben).toBe(controller.signal.reason);
    const aborted = abortedRunsOf(ana);
    expect(aborted.map((run) => [run.runId, run.messages[0]])).toEqual([
      ["ana", { role: "user", content: "Ana's run" }],
      ["ben", { role: "user", content: "Ben's run" }],
    ]);
    expect(aborted.map((run) => run.unsettledCalls.map((call) => call.runId))).toEqual([
      ["ana"],
      ["ben"],
    ]);
  });

  it("a stream() aborted mid-step and a frozen reason give the same; a reason that is no object, nothing", async () => {
    const { loop, started } = waitingAgent();
    const controller = new AbortController();
    const reason = Object.freeze(new Error("the user left"));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of loop.stream("Wait for Bob", { signal: controller.signal })) {
        seen.push(event.type);
      }
    })().catch((e: unknown) => e);
    await started.promise;
    controller.abort(reason);
    expect(await reading).toBe(reason);
    const [aborted] = abortedRunsOf(reason);
    expect(aborted!.messages.at(-1)).toMatchObject({ role: "tool", results: [{ isError: true }] });
    expect(aborted!.unsettledCalls).toHaveLength(1);
    expect(seen).toContain("tool-call");
    expect(abortedRunsOf("the user left")).toEqual([]);
    expect(abortedRunsOf(new Error("never an abort"))).toEqual([]);
  });
});
