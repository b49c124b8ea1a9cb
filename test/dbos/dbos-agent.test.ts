/**
 * `dbosAgent`: a run as a DBOS workflow on a real PostgreSQL (started by
 * scripts/with-services.mjs): text and tools, a pause that waits inside the workflow for
 * decisions, decisions checked (another pause, a wrong digest, a missing call: refused, the run
 * keeps waiting), the same decisions sent twice run once, and a client-side tool's result;
 * what decide() says became of its decisions, waiting for the next pause, result()'s timeout,
 * a run started on a queue, and the runs seen through a DBOSClient.
 */
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import { AgentLoop, tool } from "tollgate";
import { type DbosAgent, dbosAgent, dbosAgentClient } from "tollgate/dbos";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { serviceUrl } from "../support/services.js";

const url = serviceUrl("postgres", "test/dbos/dbos-agent.test.ts");
const silent = { info() {}, debug() {}, warn() {}, error() {} };

const ran: string[] = [];
const refund = tool({
  name: "refund",
  description: "Refunds an order",
  input: z.object({ order: z.number() }),
  needsApproval: true,
  execute: ({ order }) => {
    ran.push(`refund ${order}`);
    return `refunded ${order}`;
  },
});
const weather = tool({
  name: "weather",
  description: "The weather",
  input: z.object({ city: z.string() }),
  idempotent: true,
  execute: ({ city }) => {
    ran.push(`weather ${city}`);
    return { city, tempC: 21 };
  },
});
const locate = tool({ name: "locate", description: "The page answers", input: z.object({}) });

/** Each test's runs get their own script: a provider per run id, by the first user message. */
function script(prompt: string) {
  if (prompt.startsWith("refund")) {
    return [
      {
        text: "Looking.",
        toolCalls: [
          { name: "weather", args: { city: "Oslo" } },
          { name: "refund", args: { order: 7 } },
        ],
      },
      { text: "Done." },
    ];
  }
  if (prompt.startsWith("twice")) {
    return [
      { toolCalls: [{ name: "refund", args: { order: 1 } }] },
      { toolCalls: [{ name: "refund", args: { order: 2 } }] },
      { text: "Both." },
    ];
  }
  return [{ toolCalls: [{ name: "locate", args: {} }] }, { text: "Located." }];
}

/** The one decision that approves a pause's only call. */
const approveOnly = (pause: { pending: { key: string; digest: string }[] }) => ({
  [pause.pending[0]!.key]: { approve: true as const, digest: pause.pending[0]!.digest },
});

let agent: DbosAgent;
let systemUrl: string;
const events: [string, number, string][] = [];

beforeAll(async () => {
  if (!url) return;
  const providers = new Map<string, ReturnType<typeof scriptedProvider>>();
  agent = dbosAgent({
    name: "test",
    loop: {
      provider: {
        name: "scripted",
        model: "scripted",
        generate(request, options) {
          const first = request.messages[0] as { content: string };
          let provider = providers.get(first.content);
          if (!provider) {
            provider = scriptedProvider(script(first.content));
            providers.set(first.content, provider);
          }
          return provider.generate(request, options);
        },
      },
      tools: [refund, weather, locate],
    },
    approvalTimeoutMs: 60_000,
    onEvent: (event, seq) => events.push([event.runId, seq, event.type]),
  });
  const system = new URL(url);
  system.pathname = `/tollgate_dbos_${process.pid}`;
  systemUrl = system.toString();
  DBOS.setConfig({ name: "tollgate-test", systemDatabaseUrl: systemUrl, logger: silent });
  await DBOS.launch();
  await DBOS.registerQueue("agents");
}, 60_000);

afterAll(async () => {
  if (url) await DBOS.shutdown();
});

describe.skipIf(!url)("dbosAgent", () => {
  it("a pause waits inside the workflow; checked decisions resume it once", async () => {
    await agent.start("run-refund", "refund order 7");
    const pause = await agent.waiting("run-refund", { timeoutMs: 10_000 });
    expect(pause).toMatchObject({
      runId: "run-refund",
      pause: 0,
      pending: [{ toolName: "refund", args: { order: 7 }, key: "call_0_1" }],
      external: [],
    });
    expect(ran).toEqual(["weather Oslo"]);
    const call = pause!.pending[0]!;
    // Refused, and the run keeps waiting: a wrong digest, another call, a missing decision.
    expect(
      await agent.decide("run-refund", 0, {
        [call.key]: { approve: true, digest: "0".repeat(64) },
      }),
    ).toBe("refused");
    expect(
      await agent.decide("run-refund", 0, { other: { approve: true, digest: call.digest } }),
    ).toBe("refused");
    expect(await agent.decide("run-refund", 0, {})).toBe("refused");
    const refused = await DBOS.getEvent<{ reason: string }>(
      "run-refund",
      "tollgate.waiting.refused",
      10,
    );
    expect(refused?.reason).toMatch(/./);
    expect(ran).toEqual(["weather Oslo"]);
    // The right decision, sent twice: it runs once.
    const decisions = { [call.key]: { approve: true as const, digest: call.digest } };
    expect(await agent.decide("run-refund", 0, decisions)).toBe("taken");
    expect(await agent.decide("run-refund", 0, decisions)).toBe("taken");
    const result = await agent.result("run-refund");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Done.");
    expect(ran).toEqual(["weather Oslo", "refund 7"]);
    expect(await agent.waiting("run-refund")).toBeUndefined();
    // Other decisions for a pause the run left: nothing is sent, and decide() says so.
    expect(
      await agent.decide("run-refund", 0, {
        [call.key]: { approve: false, digest: call.digest },
      }),
    ).toBe("not-waiting");
    // Starting the same run id again starts nothing.
    await agent.start("run-refund", "refund order 7");
    expect(await agent.result("run-refund")).toMatchObject({ status: "completed" });
    expect(ran).toEqual(["weather Oslo", "refund 7"]);
    const seqs = events.filter(([runId]) => runId === "run-refund").map(([, seq]) => seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("a client-side tool's result comes as a decision too", async () => {
    await agent.start("run-locate", "where am I");
    const pause = await agent.waiting("run-locate", { timeoutMs: 10_000 });
    const call = pause!.external[0]!;
    expect(call).toMatchObject({ toolName: "locate", key: "call_0_0" });
    await agent.decide("run-locate", 0, {
      [call.key]: { result: { city: "Oslo" }, digest: call.digest },
    });
    const result = await agent.result("run-locate");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      output: { city: "Oslo" },
      isError: false,
    });
  });

  it("refuses options DBOS keeps", () => {
    expect(() =>
      dbosAgent({ name: "x", loop: { provider: scriptedProvider([]), store: {} as never } }),
    ).toThrow(/loop.store is DBOS's to keep/);
    // A handoff target's model calls and tools would not be recorded steps: refused, not replayed.
    const billing = new AgentLoop({ name: "billing", provider: scriptedProvider([]) });
    expect(() =>
      dbosAgent({
        name: "x",
        loop: { name: "triage", provider: scriptedProvider([]), handoffs: [billing] },
      }),
    ).toThrow(/loop.handoffs is not supported in a durable run yet/);
    expect(() => dbosAgent({ name: "a b", loop: { provider: scriptedProvider([]) } })).toThrow(
      /name must be/,
    );
  });

  it("decide() refuses a pause that is not a number from waiting(), and decisions that are no object", async () => {
    await expect(agent.decide("run-x", "0" as never, {})).rejects.toThrow(
      /pause must be the pause's number from waiting\(\) \(0, 1, 2…\), got the string "0"|got a string/,
    );
    await expect(agent.decide("run-x", 0, [] as never)).rejects.toThrow(
      /decisions must be an object/,
    );
  });

  it("waiting({ after }) waits for the next pause; decide() for a pause not come yet sends nothing", async () => {
    await agent.start("run-twice", "twice");
    const first = await agent.waiting("run-twice", { timeoutMs: 10_000 });
    expect(first?.pause).toBe(0);
    expect(await agent.waiting("run-twice", { after: 0 })).toBeUndefined();
    expect(await agent.decide("run-twice", 1, approveOnly(first!))).toBe("not-waiting");
    expect(await agent.decide("run-twice", 0, approveOnly(first!))).toBe("taken");
    const second = await agent.waiting("run-twice", { timeoutMs: 10_000, after: 0 });
    expect(second).toMatchObject({ pause: 1, pending: [{ args: { order: 2 } }] });
    expect(await agent.decide("run-twice", 1, approveOnly(second!))).toBe("taken");
    expect(await agent.result("run-twice")).toMatchObject({ status: "completed", text: "Both." });
    expect(await agent.waiting("run-twice", { timeoutMs: 10_000, after: 1 })).toBeUndefined();
  });

  it("result() rejects past its timeout for a run that waits, and for a run DBOS does not know", async () => {
    await agent.start("run-slow", "refund order 7, slowly");
    const pause = await agent.waiting("run-slow", { timeoutMs: 10_000 });
    await expect(agent.result("run-slow", { timeoutMs: 50 })).rejects.toThrow(
      "dbosAgent().result(): run run-slow did not end within 50 ms",
    );
    await expect(agent.result("no-such-run")).rejects.toThrow(
      "dbosAgent().result(): DBOS has no run no-such-run (was it started?)",
    );
    await expect(agent.waiting("run-slow", { timeoutMs: -1 })).rejects.toThrow(
      /timeoutMs must be a number of ms, 0 or more/,
    );
    await expect(agent.waiting("run-slow", { afterPause: 0 } as never)).rejects.toThrow(
      /did you mean `after`/,
    );
    expect(await agent.decide("run-slow", 0, approveOnly(pause!))).toBe("taken");
    expect(await agent.result("run-slow", { timeoutMs: 10_000 })).toMatchObject({
      status: "completed",
    });
  });

  it("a run started on a queue, and a process that only has a DBOSClient", async () => {
    await agent.start("run-queued", "refund order 7, queued", { queue: "agents" });
    const client = await DBOSClient.create({ systemDatabaseUrl: systemUrl, logger: silent });
    try {
      const support = dbosAgentClient(client, { name: "test", queue: "agents" });
      await support.start("run-enqueued", "refund order 7, enqueued");
      for (const runId of ["run-queued", "run-enqueued"]) {
        const pause = await support.waiting(runId, { timeoutMs: 10_000 });
        expect(pause?.pending[0]).toMatchObject({ toolName: "refund" });
        expect(await support.decide(runId, 0, approveOnly(pause!))).toBe("taken");
        expect(await support.result(runId, { timeoutMs: 10_000 })).toMatchObject({
          status: "completed",
          text: "Done.",
        });
      }
      await expect(support.result("no-such-run")).rejects.toThrow(/DBOS has no run no-such-run/);
    } finally {
      await client.destroy();
    }
    expect(() => dbosAgentClient(client, { name: "test" } as never)).toThrow(
      "dbosAgentClient(): queue must be a non-empty string, got undefined",
    );
    expect(() => dbosAgentClient({} as never, { name: "test", queue: "agents" })).toThrow(
      /expected a DBOSClient/,
    );
    await expect(agent.start("run-x", "hi", { queue: "" })).rejects.toThrow(
      /queue must be the name of a queue/,
    );
  });
});
