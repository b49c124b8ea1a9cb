/**
 * `restateAgent`: a run as a Restate virtual object on a real restate-server (the binary from
 * bench/'s npm project), its endpoint a child process (test/restate/endpoint.ts): a pause that
 * waits on an awakeable for decisions, decisions checked (another call, a wrong digest, a
 * missing call: refused, the run keeps waiting), the same decisions sent twice run once, a
 * client-side tool's result, the same run id started twice; and the endpoint SIGKILLed mid-tool:
 * a non-idempotent call settles as "outcome unknown" (run once), an idempotent one runs again.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AgentLoop } from "tollgate";
import { type RestateAgentClient, restateAgent } from "tollgate/restate";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EndpointProcess,
  freePort,
  type RestateServer,
  restateServerBinary,
  startEndpoint,
  startRestateServer,
  waitFor,
} from "../support/restate-server.js";

const binary = restateServerBinary("test/restate/restate-agent.test.ts");
const ENDPOINT = "test/restate/endpoint.ts";
/** The object the endpoint binds (`restateAgent({ name: "test" })`). */
const SERVICE = "tollgate.run.test";

let server: RestateServer;
let endpoint: EndpointProcess;
let client: RestateAgentClient;
let dir: string;
let port: number;

const env = () => ({ TOLLGATE_RESTATE_PORT: String(port), TOLLGATE_RESTATE_DIR: dir });
const lines = (file: string) =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").trim().split("\n") : [];
/** The tool executions traced, without pids (`start weather Oslo`). */
const ran = () =>
  lines("trace.log")
    .filter((line) => line.startsWith("start "))
    .map((line) => line.replace(/ \d+$/, ""));
const count = (line: string) => ran().filter((traced) => traced === line).length;

beforeAll(async () => {
  if (!binary) return;
  dir = mkdtempSync(join(tmpdir(), "tollgate-restate-test-"));
  port = await freePort();
  // A run waiting more than 300 ms (on an awakeable, a timer) is suspended, and the next event
  // starts a new attempt that replays its journal: the waits here take that path (the default
  // is 1 minute). Not shorter: a short one also suspends attempts that wait for a journal
  // entry's ack, and on a loaded machine a non-idempotent call would read "outcome unknown"
  // with no crash (docs/restate.md, "What to know").
  server = await startRestateServer(binary, {
    RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT: "300ms",
  });
  endpoint = await startEndpoint(ENDPOINT, env());
  await server.register(`http://127.0.0.1:${port}`);
  // The client needs only the object's name: the same agent, never served here.
  client = restateAgent({ name: "test", loop: { provider: scriptedProvider([]) } }).client(
    server.ingress,
  );
}, 60_000);

afterAll(async () => {
  if (!binary) return;
  await endpoint?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!binary)("restateAgent", () => {
  it("a pause waits on an awakeable; checked decisions resume it once", async () => {
    await client.start("run-refund", "refund order 7");
    const pause = await client.waiting("run-refund", { timeoutMs: 10_000 });
    expect(pause).toMatchObject({
      runId: "run-refund",
      pause: 0,
      pending: [{ toolName: "refund", args: { order: 7 }, key: "call_0_1" }],
      external: [],
    });
    expect(ran()).toEqual(["start weather Oslo"]);
    const call = pause!.pending[0]!;
    // Refused, and the run keeps waiting: a wrong digest, another call, a missing decision.
    expect(
      await client.decide("run-refund", 0, {
        [call.key]: { approve: true, digest: "0".repeat(64) },
      }),
    ).toBe("refused");
    expect(
      await client.decide("run-refund", 0, { other: { approve: true, digest: call.digest } }),
    ).toBe("refused");
    expect(await client.decide("run-refund", 0, {})).toBe("refused");
    const refused = await fetch(`${server.ingress}/${SERVICE}/run-refund/refused`, {
      method: "POST",
    }).then((r) => r.json() as Promise<{ pause: number; reason: string } | null>);
    expect(refused).toMatchObject({ pause: 0, reason: expect.stringMatching(/no decision for/) });
    expect(await client.waiting("run-refund")).toMatchObject({ pause: 0 });
    expect(ran()).toEqual(["start weather Oslo"]);
    // Past the inactivity timeout the run is suspended: the decision wakes a new attempt.
    await sleep(600);
    // The right decision, sent twice: it runs once.
    const decisions = { [call.key]: { approve: true as const, digest: call.digest } };
    expect(await client.decide("run-refund", 0, decisions)).toBe("taken");
    expect(await client.decide("run-refund", 0, decisions)).toBe("taken");
    const result = await client.result("run-refund");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Done.");
    expect(ran()).toEqual(["start weather Oslo", "start refund 7"]);
    expect(await client.waiting("run-refund")).toBeUndefined();
    // Other decisions for a pause the run left: nothing runs, and decide() says so.
    expect(
      await client.decide("run-refund", 0, {
        [call.key]: { approve: false, digest: call.digest },
      }),
    ).toBe("not-waiting");
    // Starting the same run id again starts nothing.
    await client.start("run-refund", "refund order 7");
    expect(await client.result("run-refund")).toMatchObject({ status: "completed" });
    expect(ran()).toEqual(["start weather Oslo", "start refund 7"]);
    // A second invocation without the idempotency key (as once Restate forgot it): the run's
    // state holds its result, and nothing runs again.
    const again = await fetch(`${server.ingress}/${SERVICE}/run-refund/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "refund order 7" }),
    }).then((r) => r.json() as Promise<{ status: string; text: string }>);
    expect(again).toMatchObject({ status: "completed", text: "Done." });
    expect(ran()).toEqual(["start weather Oslo", "start refund 7"]);
    // Each event once by its number, the numbers 1, 2, 3, …
    const seqs = lines("events.log")
      .map((line) => line.split(" "))
      .filter(([runId]) => runId === "run-refund")
      .map(([, seq]) => Number(seq));
    const seen = [...new Set(seqs)];
    expect(seen.length).toBeGreaterThan(3);
    expect(seen).toEqual(seen.map((_, i) => i + 1));
  }, 60_000);

  // Both read the same awakeable and resolve it; the first wins. Which one comes first is up to
  // the race: when the refused one does, decide() sees it taken by another and sends again.
  it("decisions racing for one awakeable: the refused one does not swallow the right one", async () => {
    await client.start("run-race", "refund order 7 again");
    const pause = await client.waiting("run-race", { timeoutMs: 10_000 });
    const call = pause!.pending[0]!;
    const [forged, right] = await Promise.all([
      client.decide("run-race", 0, { [call.key]: { approve: true, digest: "1".repeat(64) } }),
      client.decide("run-race", 0, { [call.key]: { approve: true, digest: call.digest } }),
    ]);
    expect(right).toBe("taken");
    // Refused when it came first; else the run went on without it.
    expect(["refused", "not-waiting"]).toContain(forged);
    const result = await client.result("run-race");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[1]!.result).toMatchObject({
      output: "refunded 7",
      isError: false,
    });
  }, 60_000);

  it("a forged, non-JSON resolve of the awakeable is refused, and the run keeps waiting", async () => {
    await client.start("run-forged", "refund order 7, forged");
    const pause = await client.waiting("run-forged", { timeoutMs: 10_000 });
    const raw = await fetch(`${server.ingress}/${SERVICE}/run-forged/waiting`, {
      method: "POST",
    }).then((r) => r.json() as Promise<{ awakeable: string }>);
    const forged = await fetch(`${server.ingress}/restate/awakeables/${raw.awakeable}/resolve`, {
      method: "POST",
      body: "yes",
    });
    expect(forged.status).toBe(202);
    await waitFor("the forged message to be refused", async () => {
      const now = await fetch(`${server.ingress}/${SERVICE}/run-forged/refused`, {
        method: "POST",
      }).then((r) => r.json() as Promise<{ reason: string } | null>);
      return now?.reason.includes("got undefined") ? now : undefined;
    });
    const call = pause!.pending[0]!;
    await client.decide("run-forged", 0, { [call.key]: { approve: true, digest: call.digest } });
    expect(await client.result("run-forged")).toMatchObject({ status: "completed", text: "Done." });
  }, 60_000);

  it("waiting({ after }) waits for the next pause; result() rejects past its timeout", async () => {
    await client.start("run-twice", "twice");
    const first = await client.waiting("run-twice", { timeoutMs: 10_000 });
    expect(first?.pause).toBe(0);
    expect(await client.waiting("run-twice", { after: 0 })).toBeUndefined();
    await expect(client.result("run-twice", { timeoutMs: 100 })).rejects.toThrow(
      "restateAgent().client().result(): run run-twice did not end within 100 ms",
    );
    const approve = (pause: typeof first) => ({
      [pause!.pending[0]!.key]: { approve: true as const, digest: pause!.pending[0]!.digest },
    });
    expect(await client.decide("run-twice", 1, approve(first))).toBe("not-waiting");
    expect(await client.decide("run-twice", 0, approve(first))).toBe("taken");
    const second = await client.waiting("run-twice", { timeoutMs: 10_000, after: 0 });
    expect(second).toMatchObject({ pause: 1, pending: [{ args: { order: 2 } }] });
    expect(await client.decide("run-twice", 1, approve(second))).toBe("taken");
    expect(await client.result("run-twice", { timeoutMs: 10_000 })).toMatchObject({
      status: "completed",
      text: "Both.",
    });
    await expect(client.waiting("run-twice", { timeoutMs: "1s" } as never)).rejects.toThrow(
      /timeoutMs must be a number of ms/,
    );
  }, 60_000);

  it("a run id with spaces, slashes, % and non-ASCII letters", async () => {
    const runId = "ticket 42/é%20ü";
    await client.start(runId, "where am I");
    const pause = await client.waiting(runId, { timeoutMs: 10_000 });
    expect(pause?.runId).toBe(runId);
    const call = pause!.external[0]!;
    expect(
      await client.decide(runId, 0, {
        [call.key]: { result: { city: "Oslo" }, digest: call.digest },
      }),
    ).toBe("taken");
    expect(await client.result(runId, { timeoutMs: 10_000 })).toMatchObject({
      status: "completed",
      text: "Located.",
    });
    await expect(client.start("", "hi")).rejects.toThrow(/runId must be a run id/);
  }, 60_000);

  it("a client-side tool's result comes as a decision too", async () => {
    await client.start("run-locate", "where am I");
    const pause = await client.waiting("run-locate", { timeoutMs: 10_000 });
    const call = pause!.external[0]!;
    expect(call).toMatchObject({ toolName: "locate", key: "call_0_0" });
    await client.decide("run-locate", 0, {
      [call.key]: { result: { city: "Oslo" }, digest: call.digest },
    });
    const result = await client.result("run-locate");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      output: { city: "Oslo" },
      isError: false,
    });
  }, 60_000);

  it("the endpoint killed mid-tool: a non-idempotent call is outcome unknown, run once", async () => {
    writeFileSync(join(dir, "hold-charge"), "");
    await client.start("run-charge", "charge 5");
    await waitFor("charge to start", () => (count("start charge 5") > 0 ? true : undefined));
    await endpoint.kill();
    rmSync(join(dir, "hold-charge"));
    endpoint = await startEndpoint(ENDPOINT, env());
    const result = await client.result("run-charge");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Charged.");
    const settled = result.steps[0]!.calls[0]!.result;
    expect(settled).toMatchObject({ isError: true });
    expect(JSON.stringify(settled)).toMatch(/outcome unknown/);
    expect(count("start charge 5")).toBe(1);
  }, 60_000);

  it("the endpoint killed mid-tool: an idempotent call runs again, once", async () => {
    writeFileSync(join(dir, "hold-lookup"), "");
    await client.start("run-lookup", "lookup 9");
    await waitFor("lookup to start", () => (count("start lookup 9") > 0 ? true : undefined));
    await endpoint.kill();
    rmSync(join(dir, "hold-lookup"));
    endpoint = await startEndpoint(ENDPOINT, env());
    const result = await client.result("run-lookup");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Shipped.");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      output: { order: 9, status: "shipped" },
      isError: false,
    });
    expect(count("start lookup 9")).toBe(2);
    expect(lines("trace.log").filter((line) => line.startsWith("end lookup 9"))).toHaveLength(1);
  }, 60_000);

  it("a pause past its timeout refuses every waiting call, and the run goes on", async () => {
    const hasty = restateAgent({ name: "hasty", loop: { provider: scriptedProvider([]) } }).client(
      server.ingress,
    );
    await hasty.start("run-hasty", "refund order 7, hastily");
    const result = await hasty.result("run-hasty");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[1]!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(result.steps[0]!.calls[1]!.result)).toMatch(
      /no decision came within 300 ms/,
    );
    expect(await hasty.waiting("run-hasty")).toBeUndefined();
  }, 60_000);

  it("a client whose ingress is not there says so", async () => {
    const port = await freePort();
    const away = restateAgent({ name: "test", loop: { provider: scriptedProvider([]) } }).client(
      `http://127.0.0.1:${port}`,
    );
    await expect(away.decide("run-x", 0, {})).rejects.toThrow(
      `restate: cannot reach Restate's ingress at http://127.0.0.1:${port} (ECONNREFUSED)`,
    );
  });

  it("refuses options Restate keeps", () => {
    expect(() =>
      restateAgent({ name: "x", loop: { provider: scriptedProvider([]), store: {} as never } }),
    ).toThrow(/loop.store is Restate's to keep/);
    const billing = new AgentLoop({ name: "billing", provider: scriptedProvider([]) });
    expect(() =>
      restateAgent({
        name: "x",
        loop: { name: "triage", provider: scriptedProvider([]), handoffs: [billing] },
      }),
    ).toThrow(/loop.handoffs is not supported in a durable run yet/);
    expect(() => restateAgent({ name: "a b", loop: { provider: scriptedProvider([]) } })).toThrow(
      /name must be/,
    );
  });
});
