import fc from "fast-check";
import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  type LoopPolicy,
  memoryRunStore,
  PolicyError,
  type RunStore,
  StoreError,
  TollgateError,
  tool,
} from "tollgate";
import { functionProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  expectScenario,
  expectTranscriptInvariant,
  type KnownBugs,
  play,
  predict,
  type Scenario,
  scenarioArb,
} from "../support/oracle.js";
import { runs } from "../support/runs.js";

/**
 * The gate cannot be bypassed by mistake (DESIGN sections 4, 5, 8 and 10): random malformed
 * and valid answers from every user callback — pre-call hooks, decideToolCall, needsApproval,
 * prepareStep, endsRun, executeTool, listeners that throw or try to steer through the event
 * objects, a RunStore that throws or answers garbage — × random scripts of tool calls, run and
 * (when paused) resumed. The oracle in test/support/oracle.ts predicts each run from DESIGN.md
 * alone: which calls execute and with which args, what every callback is asked, which events
 * each call gets, and how the run ends (its status, or its error class).
 */

const surprises: { kind: string; reason: unknown }[] = [];
const onRejection = (reason: unknown) => surprises.push({ kind: "unhandledRejection", reason });
const onException = (reason: unknown) => surprises.push({ kind: "uncaughtException", reason });

beforeAll(() => {
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
});
afterAll(() => {
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);
});

/** Lets the process report whatever it would report about the run just played. */
const settleProcess = () => new Promise((resolve) => setImmediate(resolve));

function expectNoSurprises() {
  expect(
    surprises.map(({ kind, reason }) => `${kind}: ${String((reason as Error)?.stack ?? reason)}`),
    "the process saw no unhandled rejection or uncaught exception",
  ).toEqual([]);
}

const check = (known: KnownBugs) => async (scenario: Scenario) => {
  const observed = await play(scenario);
  await settleProcess();
  expectNoSurprises();
  expectScenario(scenario, observed, known);
};

describe("fail-closed properties", () => {
  it("no tool executes without a valid ALLOW, whatever user callbacks, listeners and the store answer; runs end only as the oracle says", async () => {
    await fc.assert(fc.asyncProperty(scenarioArb("full"), check({})), { numRuns: runs(2_500) });
    expectNoSurprises();
  }, 60_000);

  it("the oracle is not vacuous: full scenarios reach every ending and every error class", () => {
    const seen = new Set<string>();
    let executing = 0;
    let resuming = 0;
    for (const scenario of fc.sample(scenarioArb("full"), { numRuns: 2_500, seed: 7 })) {
      const { run, resume } = predict(scenario);
      if (run.executed.size > 0) executing++;
      if (resume && resume.executed.size > 0) resuming++;
      for (const phase of resume ? [run, resume] : [run]) {
        const { outcome } = phase;
        if (outcome.kind === "resolve") seen.add(outcome.status);
        else for (const type of outcome.classes) seen.add(type.name);
      }
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        "completed",
        "stopped",
        "ended_by_tool",
        "needs_approval",
        "max_steps",
        "HookError",
        "PolicyError",
        "UnknownToolError",
        "ToolRetriesExceededError",
        "ToolExecutionError",
        "ToolOutputError",
        "ScenarioProviderError",
      ]),
    );
    expect(executing, "runs in which some tool executes").toBeGreaterThan(400);
    expect(resuming, "resumes in which some tool executes").toBeGreaterThan(50);
  });
});

// ---------------------------------------------------------------------------------------------
// Minimal reproductions of the bugs the properties found (they fail until the bugs are fixed).
// ---------------------------------------------------------------------------------------------

/** One call to tool `a` with args {"n":1}, then a text answer; records the tool's executions. */
function oneCall(options: Partial<AgentLoopOptions> = {}, execute?: () => unknown) {
  const ran: unknown[] = [];
  const provider = functionProvider((_request, { step }) =>
    step === 0 ? { toolCalls: [{ id: "c1", name: "a", args: { n: 1 } }] } : { text: "done" },
  );
  const a = tool({
    name: "a",
    input: z.object({ n: z.number() }),
    execute: (args) => {
      ran.push(args);
      return execute ? execute() : "ok";
    },
  });
  const loop = new AgentLoop({ provider, tools: [a], onListenerError: () => {}, ...options });
  return { loop, ran };
}

const thenGetterThrows = () => ({
  // biome-ignore lint/suspicious/noThenProperty: a thenable whose `then` getter throws is the point
  get then() {
    throw new Error("a `then` getter that throws");
  },
});

describe("regression: an answer whose `then` getter throws is a HookError or PolicyError, not a raw Error", () => {
  const cases: [string, Partial<AgentLoopOptions>, typeof HookError | typeof PolicyError][] = [
    ["a pre-call hook", { preToolCall: [() => thenGetterThrows() as never] }, HookError],
    [
      "decideToolCall",
      { policy: { decideToolCall: () => thenGetterThrows() as never } },
      PolicyError,
    ],
    ["endsRun", { policy: { endsRun: () => thenGetterThrows() as never } }, PolicyError],
    ["prepareStep", { policy: { prepareStep: () => thenGetterThrows() as never } }, PolicyError],
  ];
  it.each(cases)("%s", async (_name, options, type) => {
    const { loop } = oneCall(options);
    await expect(loop.run("go")).rejects.toBeInstanceOf(type);
  });

  it("needsApproval", async () => {
    const provider = functionProvider(() => ({ toolCalls: [{ name: "a", args: { n: 1 } }] }));
    const a = tool({
      name: "a",
      input: z.object({ n: z.number() }),
      needsApproval: () => thenGetterThrows() as never,
      execute: () => "ok",
    });
    await expect(new AgentLoop({ provider, tools: [a] }).run("go")).rejects.toBeInstanceOf(
      PolicyError,
    );
  });
});

describe("regression: a policy answer that throws while the loop reads it is a PolicyError", () => {
  const getterThrows = (key: string) =>
    Object.defineProperty({}, key, {
      enumerable: true,
      get() {
        throw new Error(`a \`${key}\` getter that throws`);
      },
    });
  const cases: [string, LoopPolicy][] = [
    [
      "decideToolCall: { get decision() { throw } }",
      { decideToolCall: () => getterThrows("decision") as never },
    ],
    [
      "decideToolCall (async): { get decision() { throw } }",
      { decideToolCall: async () => getterThrows("decision") as never },
    ],
    [
      "prepareStep: { get tools() { throw } }",
      { prepareStep: () => getterThrows("tools") as never },
    ],
    [
      "decideToolCall: a Proxy whose getPrototypeOf throws",
      {
        decideToolCall: () =>
          new Proxy(
            {},
            {
              getPrototypeOf() {
                throw new Error("getPrototypeOf throws");
              },
            },
          ) as never,
      },
    ],
  ];
  it.each(cases)("%s", async (_name, policy) => {
    const { loop, ran } = oneCall({ policy });
    await expect(loop.run("go")).rejects.toBeInstanceOf(PolicyError);
    expect(ran).toEqual([]);
  });
});

describe("regression: what the tool's own execute throws, passed through executeTool, stays a tool error, objects and not", () => {
  const passThrough: LoopPolicy = {
    executeTool: ({ tool: chosen, args, ctx }: any) => chosen.execute(args, ctx),
  };
  it.each([
    ["a string", "tool failed"],
    ["a number", 42],
    ["undefined", undefined],
  ])(
    "the tool throws %s: an error result and the run goes on (it rejects with PolicyError)",
    async (_name, thrown) => {
      const { loop, ran } = oneCall({ policy: passThrough }, () => {
        throw thrown;
      });
      const result = await loop.run("go");
      expect(ran).toEqual([{ n: 1 }]);
      expect(result.status).toBe("completed");
      const tool = result.messages.find((m) => m.role === "tool");
      expect(tool?.role === "tool" && tool.results[0]?.isError).toBe(true);
    },
  );
});

describe("listeners cannot steer (DESIGN section 10)", () => {
  // Bug 4 at 069a23e: a run-finish listener could rewrite the RunResult run() resolves with
  // (a paused run read as completed, its pending calls gone).
  it("a run-finish listener cannot rewrite the RunResult run() resolves with", async () => {
    const provider = functionProvider(() => ({
      toolCalls: [{ id: "c1", name: "a", args: { n: 1 } }],
    }));
    const a = tool({
      name: "a",
      input: z.object({ n: z.number() }),
      needsApproval: true,
      execute: () => "ok",
    });
    const loop = new AgentLoop({ provider, tools: [a], onListenerError: () => {} });
    loop.on("run-finish", (event) => {
      const result = event.result as { status: string; pending?: unknown; messages: unknown[] };
      result.status = "completed";
      result.pending = undefined;
      result.messages.length = 0;
    });
    const result = await loop.run("go");
    expect(result.status).toBe("needs_approval");
    expect(result.pending?.map((p) => p.toolCallId)).toEqual(["c1"]);
    expect(result.messages.length).toBe(2);
  });

  // Found by the first property while this file was written; fixed since by 3f9ebe2 (events
  // frozen at delivery). Kept as regression tests.
  it("a model-response listener that assigns event.response.parts cannot add a call the model never made", async () => {
    const { loop, ran } = oneCall();
    loop.on("model-response", (event) => {
      if (event.step !== 1) return;
      (event.response as { parts: unknown[] }).parts = [
        ...event.response.parts,
        { type: "tool-call", id: "injected", name: "a", args: '{"n":666}' },
      ];
    });
    const result = await loop.run("go");
    expect(ran).toEqual([{ n: 1 }]);
    expect(result.status).toBe("completed");
  });

  it("a model-response listener that empties event.response.parts cannot skip the calls", async () => {
    const { loop, ran } = oneCall();
    loop.on("model-response", (event) => {
      (event.response as { parts: unknown[] }).parts = [];
    });
    const result = await loop.run("go");
    expect(ran).toEqual([{ n: 1 }]);
    expectTranscriptInvariant(result.messages, false);
  });
});

describe("regression: a StoreError that ends a run carries the transcript (DESIGN section 8)", () => {
  const failing = (wrap: (store: RunStore) => Partial<RunStore>): RunStore => {
    const store = memoryRunStore();
    return { ...store, ...wrap(store) };
  };
  const cases: [string, RunStore][] = [
    [
      "acquire() fails when the run starts",
      failing(() => ({ acquire: () => Promise.reject(new Error("acquire failed")) })),
    ],
    [
      "put() fails for the final state",
      failing((store) => ({
        put: (state, lease) =>
          state.status === "running"
            ? store.put(state, lease)
            : Promise.reject(new Error("put failed")),
      })),
    ],
  ];
  it.each(cases)("%s", async (_name, store) => {
    const { loop } = oneCall({ store });
    const error = await loop.run("go").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toBeInstanceOf(TollgateError);
    expect(Array.isArray((error as StoreError).messages)).toBe(true);
  });

  it("a release() that fails after a finished run does not turn it into a failure (the lease runs out on its own)", async () => {
    const store = failing(() => ({ release: () => Promise.reject(new Error("release failed")) }));
    const { loop, ran } = oneCall({ store });
    await expect(loop.run("go")).resolves.toMatchObject({ status: "completed" });
    expect(ran).toHaveLength(1);
  });
});
