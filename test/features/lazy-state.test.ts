import { inspect } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { AgentLoop, memoryRunStore, type RunResult, type RunState, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * A finished run that nothing writes or signs takes its `state` when the caller first reads it.
 * The oracle for what that state holds is the eager path it replaces: the same run with a
 * `signingKey` (sealed and signed as it ends) gives the same state, but for its `stateId`, its
 * signature and the measured `ms` of each call.
 */
const echo = tool({
  name: "echo",
  input: z.object({ x: z.number() }),
  maxRetries: 100,
  execute: ({ x }) => ({ x }),
});
const finish = tool({
  name: "finish",
  input: z.object({}),
  execute: () => "finished",
});

function loopOf(turns: ScriptedTurn[], extra: Record<string, unknown> = {}) {
  return new AgentLoop({
    provider: scriptedProvider(turns),
    tools: [echo, finish],
    maxRetries: 100,
    policy: { endsRun: ({ call }) => call.name === "finish" },
    ...extra,
  });
}

/** A state as JSON, without what differs between two runs of one script. */
function comparable(state: RunState): unknown {
  return JSON.parse(JSON.stringify(state), (key, value) =>
    key === "stateId" || key === "signature" || key === "ms" ? undefined : value,
  );
}

const oneCall: ScriptedTurn[] = [
  { toolCalls: [{ name: "echo", args: { x: 1 } }] },
  { text: "done" },
];

describe("a finished run's state, taken when first read", () => {
  it("is an enumerable accessor until read, then a plain value that stays the same", async () => {
    const result = await loopOf(oneCall).run("go", { runId: "r-1" });
    expect(Object.getOwnPropertyDescriptor(result, "state")?.get).toBeTypeOf("function");
    expect(Object.keys(result)).toContain("state");
    // What console.log shows: the accessor, and nothing of what takes the state.
    expect(inspect(result)).toContain("state: [Getter/Setter]");
    expect(inspect(result)).not.toContain("Symbol(");
    const first = result.state;
    expect(first.status).toBe("completed");
    expect(first.runId).toBe("r-1");
    expect(result.state).toBe(first);
    expect(Object.getOwnPropertyDescriptor(result, "state")?.value).toBe(first);
    expect(Object.getOwnPropertySymbols(result)).toEqual([]);
  });

  it("holds what the run held as it ended, whatever the caller does to the result first", async () => {
    const result = await loopOf(oneCall).run("go");
    const messages = structuredClone(result.messages);
    const steps = result.steps.length;
    result.messages.push({ role: "user", content: "later" });
    result.steps.length = 0;
    expect(result.state.messages).toEqual(messages);
    expect(result.state.steps).toHaveLength(steps);
  });

  it("JSON.stringify, a spread and structuredClone of the result carry the state", async () => {
    const viaJson = await loopOf(oneCall).run("go");
    expect(JSON.parse(JSON.stringify(viaJson)).state).toEqual(
      JSON.parse(JSON.stringify(viaJson.state)),
    );
    const viaSpread = await loopOf(oneCall).run("go");
    const copy = { ...viaSpread };
    expect(Object.getOwnPropertyDescriptor(copy, "state")?.value).toBe(viaSpread.state);
    const viaClone = await loopOf(oneCall).run("go");
    expect(structuredClone(viaClone).state).toEqual(viaClone.state);
  });

  it("a frozen result still gives one state, read after read; assigning to it throws", async () => {
    const result = Object.freeze(await loopOf(oneCall).run("go"));
    const state = result.state;
    expect(state.status).toBe("completed");
    expect(result.state).toBe(state);
    expect(() => {
      (result as { state: unknown }).state = undefined;
    }).toThrow(TypeError);
  });

  it("assigning the state replaces it, as a plain property would", async () => {
    const result = await loopOf(oneCall).run("go");
    const mine = { mine: true } as unknown as RunState;
    (result as { state: RunState }).state = mine;
    expect(result.state).toBe(mine);
    expect(JSON.parse(JSON.stringify(result)).state).toEqual({ mine: true });
  });

  it("a run-finish listener and the caller see the same state", async () => {
    let seen: RunState | undefined;
    const loop = loopOf(oneCall, {
      onEvent: (event: { type: string; result?: RunResult }) => {
        if (event.type === "run-finish") seen = event.result!.state;
      },
    });
    const result = await loop.run("go");
    expect(seen?.stateId).toBe(result.state.stateId);
  });

  it("is a plain value at once when the run pauses, has a store, signs its states or has a listener", async () => {
    const waits = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args: { x: 1 } }] }]),
      tools: [echo],
      policy: { decideToolCall: () => "NEEDS_APPROVAL" },
    });
    const paused = await waits.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(Object.getOwnPropertyDescriptor(paused, "state")?.value).toBeDefined();
    const stored = await loopOf(oneCall, { store: memoryRunStore() }).run("go");
    expect(Object.getOwnPropertyDescriptor(stored, "state")?.value?.status).toBe("completed");
    const signed = await loopOf(oneCall, { signingKey: "k".repeat(32), allowReplay: true }).run(
      "go",
    );
    expect(Object.getOwnPropertyDescriptor(signed, "state")?.value?.signature).toBeTypeOf("string");
    const heard = await loopOf(oneCall, { onEvent: () => {} }).run("go");
    expect(Object.getOwnPropertyDescriptor(heard, "state")?.value?.status).toBe("completed");
    let fromStream: RunResult | undefined;
    for await (const event of loopOf(oneCall).stream("go")) {
      if (event.type === "run-finish") fromStream = event.result;
    }
    expect(Object.getOwnPropertyDescriptor(fromStream, "state")?.value?.status).toBe("completed");
  });

  it("keeps the run's data until read, not what the run held beside it (its deps)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const finished = async () => {
      const deps = { big: new Array(1000).fill("x") };
      const result = await loopOf(oneCall).run("go", { deps });
      return { result, deps: new WeakRef(deps) };
    };
    const { result, deps } = await finished();
    for (let i = 0; i < 5 && deps.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(deps.deref()).toBeUndefined();
    expect(result.state.status).toBe("completed");
  });

  it("property: for random scripts, the state read late equals the one the signed run takes as it ends", async () => {
    const call = fc.oneof(
      fc.record({ name: fc.constant("echo"), args: fc.record({ x: fc.integer() }) }),
      fc.record({ name: fc.constant("finish"), args: fc.constant({}) }),
      fc.record({ name: fc.constant("missing"), args: fc.constant({}) }),
      fc.record({ name: fc.constant("echo"), args: fc.constant({ x: "not a number" }) }),
    );
    const turn: fc.Arbitrary<ScriptedTurn> = fc.oneof(
      fc.record({ toolCalls: fc.array(call, { minLength: 1, maxLength: 3 }) }),
      fc.record({ text: fc.string({ maxLength: 8 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (script, maxSteps, meddle) => {
          const turns = [...script, { text: "end" }];
          const runId = "run-1";
          const late = await loopOf(turns, { maxSteps }).run("go", { runId });
          const text = JSON.stringify(late.messages);
          if (meddle) {
            late.messages.length = 0;
            late.steps.length = 0;
          }
          const signed = await loopOf(turns, {
            maxSteps,
            signingKey: "k".repeat(32),
            allowReplay: true,
          }).run("go", {
            runId,
          });
          expect(late.status).toBe(signed.status);
          expect(comparable(late.state)).toEqual(comparable(signed.state));
          expect(JSON.stringify(late.state.messages)).toBe(text);
          expect(late.state.status).toBe(late.status);
          expect(late.state.stateId).not.toBe(signed.state.stateId);
        },
      ),
      { numRuns: 120 },
    );
  });
});
