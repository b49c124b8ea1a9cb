/**
 * How a run's state is taken and written (DESIGN §5, §10): `snapshot` copies the run at one
 * moment with its open step; `sealState` lists the calls waiting for a decision, each with a
 * digest bound to the state, and signs it when the loop has a key; `runWrites` writes
 * checkpoints and the final state in order, a failure failing every later write.
 */
import {
  AgentLoop,
  type CallRecord,
  type Message,
  type RunLease,
  type RunState,
  type StepRecord,
  StoreError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunContext } from "../../src/loop/run-context.js";
import type { ResolvedOptions } from "../../src/options/loop-options.js";
import { approvalDigest } from "../../src/state/digest.js";
import { RUN_STATE_VERSION, signatureOf, stateDigestOf } from "../../src/state/run-state.js";
import { runWrites } from "../../src/state/run-writes.js";
import { sealState } from "../../src/state/seal-state.js";
import { snapshot } from "../../src/state/snapshot.js";
import type { StoreCalls } from "../../src/state/store-calls.js";
import { collectUnhandledRejections } from "../support/unhandled.js";

const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };

function step(index: number, calls: CallRecord[] = []): StepRecord {
  return {
    index,
    tools: ["pay"],
    callable: ["pay"],
    response: { parts: [], finishReason: "tool-calls", usage },
    calls,
    usage,
    ms: 1,
  };
}

function call(id: string, verdict: CallRecord["verdict"], extra: Partial<CallRecord> = {}) {
  return {
    toolCallId: id,
    toolName: "pay",
    rawArgs: `{"id":"${id}"}`,
    args: { id },
    verdict,
    by: "policy",
    ...extra,
  } satisfies CallRecord;
}

const settled = (id: string) => ({
  result: { toolCallId: id, toolName: "pay", output: "paid", isError: false },
});

/** The run context `snapshot` and `runWrites` read, with the loop's parts they do not need left out. */
/** A run's context as this test writes it: the test stands in for the run's transitions. */
type TestRun = RunContext<unknown> & {
  messages: Message[];
  steps: StepRecord[];
  executed: string[];
  denied: { toolName: string; args: string }[];
  retries: Map<string, number>;
  unavailableCalls: Map<string, number>;
};

function runContext(parts: Partial<RunContext<unknown>> = {}): TestRun {
  return {
    runId: "run-1",
    maxSteps: 5,
    messages: [{ role: "user", content: "go" }],
    steps: [],
    usage,
    retries: new Map(),
    unavailableCalls: new Map(),
    executed: [],
    denied: [],
    remembered: [],
    limits: { toolCalls: 3 },
    callCounts: { modelCalls: 1, toolCalls: 2 },
    lease: { runId: "run-1", token: 1, ttlMs: 1_000 },
    stepInProgress: undefined,
    ...parts,
  } as Partial<RunContext<unknown>> as TestRun;
}

function state(status: RunState["status"], steps: StepRecord[]): RunState {
  return {
    version: RUN_STATE_VERSION,
    stateId: "state-1",
    runId: "run-1",
    status,
    messages: [{ role: "user", content: "go" }],
    steps,
    usage,
    maxSteps: 5,
    retries: {},
    unavailableCalls: {},
    executed: [],
    denied: [],
  };
}

describe("snapshot", () => {
  it("is the run as it stands, with a fresh stateId each time", () => {
    const run = runContext({
      steps: [step(0)],
      retries: new Map([["pay", 1]]),
      unavailableCalls: new Map([["nope", 2]]),
      executed: ["pay"],
      denied: [{ toolName: "pay", args: "{}" }],
    });
    const taken = snapshot(run, "running");
    expect(taken).toStrictEqual({
      version: RUN_STATE_VERSION,
      stateId: expect.any(String),
      runId: "run-1",
      status: "running",
      messages: [{ role: "user", content: "go" }],
      steps: [step(0)],
      usage,
      maxSteps: 5,
      retries: { pay: 1 },
      unavailableCalls: { nope: 2 },
      executed: ["pay"],
      denied: [{ toolName: "pay", args: "{}" }],
      limits: { toolCalls: 3 },
      callCounts: { modelCalls: 1, toolCalls: 2 },
    });
    expect(snapshot(run, "running").stateId).not.toBe(taken.stateId);
  });

  it("is a copy: what the run appends later does not change a snapshot taken before", () => {
    const run = runContext({ steps: [step(0)], executed: ["pay"] });
    const taken = snapshot(run, "running");
    const before = structuredClone(taken);
    run.messages.push({ role: "assistant", parts: [{ type: "text", text: "later" }] });
    run.steps.push(step(1));
    run.executed.push("pay");
    run.denied.push({ toolName: "pay", args: "{}" });
    run.retries.set("pay", 3);
    run.unavailableCalls.set("nope", 1);
    expect(taken).toStrictEqual(before);
  });

  it("the open step takes its index, and the run's own steps are left as they are", () => {
    const open = step(1, [call("a", "needs-approval")]);
    const run = runContext({ steps: [step(0)], stepInProgress: () => open });
    const taken = snapshot(run, "running");
    expect(taken.steps).toEqual([step(0), open]);
    expect(run.steps).toEqual([step(0)]);

    const stale = step(1);
    const replaced = snapshot(
      runContext({ steps: [step(0), stale], stepInProgress: () => open }),
      "running",
    );
    expect(replaced.steps).toEqual([step(0), open]);
  });

  it("carries endedBy only when given", () => {
    const endedBy = { id: "a", name: "pay", args: { id: "a" }, rawArgs: '{"id":"a"}' };
    expect(Object.hasOwn(snapshot(runContext(), "needs_approval"), "endedBy")).toBe(false);
    expect(Object.hasOwn(snapshot(runContext(), "needs_approval", {}), "endedBy")).toBe(false);
    expect(snapshot(runContext(), "needs_approval", { endedBy }).endedBy).toBe(endedBy);
  });
});

describe("sealState", () => {
  const openStep = () =>
    step(1, [
      call("a", "allow", settled("a")),
      call("b", "needs-approval"),
      call("c", "needs-approval", { reason: "over the limit" }),
      call("d", "needs-approval", settled("d")),
      call("e", "deny", { reason: "no" }),
      call("f", "allow"),
    ]);

  it.each(["needs_approval", "running"] as const)(
    "a %s state lists the needs-approval calls without a result, in order, with digests",
    async (status) => {
      const given = state(status, [step(0, [call("z", "needs-approval")]), openStep()]);
      const sealed = await sealState(given, undefined);
      expect(sealed).toBe(given);
      const stateDigest = await stateDigestOf(given);
      const digest = (id: string) => approvalDigest("run-1", id, "pay", { id }, stateDigest);
      expect(sealed.pending).toStrictEqual([
        { toolCallId: "b", toolName: "pay", args: { id: "b" }, digest: await digest("b") },
        {
          toolCallId: "c",
          toolName: "pay",
          args: { id: "c" },
          digest: await digest("c"),
          reason: "over the limit",
        },
      ]);
      expect(sealed.pending!.every(Object.isFrozen)).toBe(true);
      expect(Object.hasOwn(sealed, "signature")).toBe(false);
    },
  );

  it.each(["completed", "stopped", "ended_by_tool", "max_steps"] as const)(
    "a %s state lists nothing pending",
    async (status) => {
      const sealed = await sealState(state(status, [openStep()]), undefined);
      expect(Object.hasOwn(sealed, "pending")).toBe(false);
    },
  );

  it("a state without steps, or with nothing waiting, lists nothing pending", async () => {
    const empty = await sealState(state("running", []), undefined);
    expect(Object.hasOwn(empty, "pending")).toBe(false);
    const done = await sealState(
      state("running", [step(0, [call("a", "allow", settled("a"))])]),
      undefined,
    );
    expect(Object.hasOwn(done, "pending")).toBe(false);
  });

  it("a digest is bound to the state: the same call in another state gets another digest", async () => {
    const one = await sealState(state("needs_approval", [openStep()]), undefined);
    const other = state("needs_approval", [openStep()]);
    other.messages.push({ role: "user", content: "something else" } satisfies Message);
    const two = await sealState(other, undefined);
    expect(one.pending![0]!.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(two.pending![0]!.digest).not.toBe(one.pending![0]!.digest);
  });

  it("signs the state, pending list included, only when there is a key", async () => {
    for (const key of ["secret", new TextEncoder().encode("secret")]) {
      const sealed = await sealState(state("needs_approval", [openStep()]), key);
      expect(sealed.pending).toHaveLength(2);
      expect(sealed.signature).toBe(await signatureOf(sealed, "secret"));
      const { signature: _, pending: __, ...withoutPending } = sealed;
      expect(sealed.signature).not.toBe(await signatureOf(withoutPending, "secret"));
    }
  });

  it("through the loop: a pending call carries a reason only when it has one", async () => {
    const pay = tool({
      name: "pay",
      input: z.object({ n: z.number() }),
      needsApproval: true,
      execute: () => "paid",
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "a", name: "pay", args: { n: 1 } },
            { id: "b", name: "pay", args: { n: 2 } },
          ],
        },
      ]),
      tools: [pay],
      policy: {
        decideToolCall: ({ call }) =>
          call.id === "b" ? { decision: "NEEDS_APPROVAL", reason: "big" } : undefined,
      },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("needs_approval");
    expect(result.pending).toStrictEqual([
      { toolCallId: "a", toolName: "pay", args: { n: 1 }, digest: expect.any(String) },
      {
        toolCallId: "b",
        toolName: "pay",
        args: { n: 2 },
        digest: expect.any(String),
        reason: "big",
      },
    ]);
    expect(Object.hasOwn(result.state, "endedBy")).toBe(false);
  });
});

/** Store calls whose `put` records each write and answers from `answer`. */
function recordingStore(answer: (state: RunState) => Promise<void> = async () => {}) {
  const puts: { state: RunState; lease: RunLease }[] = [];
  const unexpected = () => Promise.reject(new Error("not expected here"));
  const store: StoreCalls = {
    get: unexpected,
    acquire: unexpected,
    renew: unexpected,
    release: unexpected,
    claim: unexpected,
    put: (state, lease) => {
      puts.push({ state, lease });
      return answer(state);
    },
  };
  return { store, puts };
}

const optionsWith = (store: StoreCalls | undefined, signingKey?: string) =>
  ({ store, signingKey }) as Partial<ResolvedOptions<unknown>> as ResolvedOptions<unknown>;

describe("runWrites", () => {
  const unhandled = collectUnhandledRejections();

  it("without a store writes nothing and resolves at once", async () => {
    const writes = runWrites(() => {
      throw new Error("the run is not read without a store");
    }, optionsWith(undefined));
    const checkpoint = writes.checkpoint();
    const write = writes.write(state("completed", []));
    expect(checkpoint).toBeInstanceOf(Promise);
    expect(write).toBeInstanceOf(Promise);
    await expect(checkpoint).resolves.toBeUndefined();
    await expect(write).resolves.toBeUndefined();
  });

  it("writes checkpoints, each the run as it stood when asked, then the final state, in order", async () => {
    const started: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { store, puts } = recordingStore(async (written) => {
      started.push(written.status);
      if (started.length === 1) await first; // a slow first write
    });
    const run = runContext({ steps: [] });
    const writes = runWrites(() => run, optionsWith(store));
    const one = writes.checkpoint();
    run.steps.push(step(0));
    const two = writes.checkpoint();
    run.steps.push(step(1));
    const final = state("completed", [step(0), step(1)]);
    const three = writes.write(final);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(started).toEqual(["running"]); // the others wait for the first
    release();
    await Promise.all([one, two, three]);
    expect(puts.map(({ state }) => [state.status, state.steps.length])).toEqual([
      ["running", 0],
      ["running", 1],
      ["completed", 2],
    ]);
    expect(puts[2]!.state).toBe(final);
    expect(puts.every(({ lease }) => lease === run.lease)).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it("a failed write fails every later one with the same error, and nothing more is written", async () => {
    const refused = new StoreError("the store refused to write run run-1", "put");
    const { store, puts } = recordingStore(() => Promise.reject(refused));
    const writes = runWrites(() => runContext(), optionsWith(store));
    const results = await Promise.allSettled([
      writes.checkpoint(),
      writes.checkpoint(),
      writes.write(state("completed", [])),
    ]);
    expect(results).toEqual([
      { status: "rejected", reason: refused },
      { status: "rejected", reason: refused },
      { status: "rejected", reason: refused },
    ]);
    expect(puts).toHaveLength(1);
    await expect(writes.checkpoint()).rejects.toBe(refused);
    expect(puts).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(unhandled).toEqual([]);
  });

  it("a write after a failure that nobody awaited still rejects, and the failure is not unhandled", async () => {
    const refused = new StoreError("refused", "put");
    const { store, puts } = recordingStore(() => Promise.reject(refused));
    const writes = runWrites(() => runContext(), optionsWith(store));
    await writes.checkpoint().catch(() => {});
    await expect(writes.write(state("completed", []))).rejects.toBe(refused);
    expect(puts).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(unhandled).toEqual([]);
  });

  it("never writes without the run's lease", async () => {
    const { store, puts } = recordingStore();
    const writes = runWrites(() => runContext({ lease: undefined }), optionsWith(store));
    await expect(writes.checkpoint()).rejects.toThrow(
      "tollgate: a run with a store writes only under its lease",
    );
    expect(puts).toEqual([]);
  });

  it("seals checkpoints: status running, pending listed, signed with the loop's key", async () => {
    const { store, puts } = recordingStore();
    const open = step(0, [call("a", "needs-approval")]);
    const run = runContext({ stepInProgress: () => open });
    await runWrites(() => run, optionsWith(store, "key")).checkpoint();
    expect(puts).toHaveLength(1);
    const written = puts[0]!.state;
    expect(written.status).toBe("running");
    expect(written.pending?.map((p) => p.toolCallId)).toEqual(["a"]);
    expect(written.signature).toBe(await signatureOf(written, "key"));
  });
});
