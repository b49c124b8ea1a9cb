/**
 * The worker pool of examples/workers/ on a real Redis: BullMQ's queue and the run store both
 * live there, and the workers are real processes. One is killed with SIGKILL in the middle of
 * a tool; its job must be picked up again (BullMQ's stalled detection, with short lock settings
 * here) and its run recovered from the checkpoint, with no non-idempotent call run twice.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type FullRunStore, type LoopEvent, ResumeError, type RunState } from "tollgate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceUrl } from "../../test/support/services.js";
import { workerPool } from "../../test/support/worker-processes.js";
import { queueInboxWorker } from "./events.js";
import { enqueueDecision, enqueueRun, runsQueue } from "./pool.js";
import { sharedStore } from "./store.js";

const url = serviceUrl("redis", "examples/workers/workers.test.ts");

/** Short leases and locks, so a killed worker's run and job are free again within seconds. */
const LEASE_MS = 1500;
const SETTINGS = {
  TOLLGATE_LEASE_MS: String(LEASE_MS),
  TOLLGATE_LOCK_MS: "2000",
  TOLLGATE_STALLED_MS: "500",
  // A busy machine may let a live worker's lock lapse once: its job is then taken by another
  // worker, which the store refuses while the first holds the run. Never dropped for it.
  TOLLGATE_MAX_STALLED: "3",
};
const FINAL = ["completed", "failed", "stopped", "ended_by_tool", "stopped_by_condition"];

describe.skipIf(!url)("a worker pool on BullMQ (examples/workers)", () => {
  const tag = `workers-test-${process.pid}-${Date.now()}`;
  const prefix = `${tag}:`;
  const dir = mkdtempSync(join(tmpdir(), "tollgate-workers-"));
  const pool = workerPool({ url: url!, dir, queue: tag, prefix, env: SETTINGS });
  const { workers, waitFor, traceLines, count } = pool;
  let redis: Redis;
  let store: FullRunStore;
  let queue: ReturnType<typeof runsQueue>;
  let inbox: ReturnType<typeof queueInboxWorker> | undefined;

  /** A job's end state, once BullMQ has one. */
  const finished = (id: string) => pool.finished(queue, id);

  /** A run's state, once it is final. */
  const settled = (runId: string) =>
    waitFor(`run ${runId} to reach a final status`, async () => {
      const state = await store.get(runId);
      return state && FINAL.includes(state.status) ? state : undefined;
    });

  beforeAll(async () => {
    redis = new Redis(url!, { maxRetriesPerRequest: null });
    store = sharedStore(redis, { leaseMs: LEASE_MS, prefix });
    queue = runsQueue(redis, { attempts: 20, backoffMs: 200 }, tag);
    await Promise.all([pool.start(), pool.start(), pool.start()]);
  }, 60_000);

  afterAll(async () => {
    inbox?.close();
    await pool.stop();
    await pool.cleanUp({ queue, redis });
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("a worker killed mid-tool: its job is taken again, its run recovers, no charge runs twice", {
    timeout: 60_000,
  }, async () => {
    // A-1's tools wait inside their call while this file exists.
    writeFileSync(join(dir, "hold-A-1"), "");
    for (const order of ["A-1", "B-2", "C-3"])
      await enqueueRun(queue, `order-${order}`, `order ${order}`);

    const pid = await waitFor("both of A-1's tools to start in one worker", () => {
      const starts = traceLines().filter((l) => / (charge|lookup) A-1 /.test(l));
      const pids = new Set(starts.map((l) => l.split(" ")[3]));
      return starts.length === 2 && pids.size === 1 ? Number([...pids][0]) : undefined;
    });
    const victim = workers.find((w) => w.process.pid === pid);
    expect(victim, `pid ${pid} is one of the workers`).toBeDefined();
    victim!.process.kill("SIGKILL");
    await victim!.exited;
    rmSync(join(dir, "hold-A-1"));

    // Nothing is lost: every run reaches a final status, every job completes.
    const states: Record<string, RunState> = {};
    for (const order of ["A-1", "B-2", "C-3"]) states[order] = await settled(`order-${order}`);
    for (const order of ["A-1", "B-2", "C-3"]) {
      const { job, state } = await finished(`start-order-${order}`);
      expect(state, `job of ${order}: ${job.failedReason}`).toBe("completed");
      expect(states[order]!.status).toBe("completed");
    }
    const { job } = await finished("start-order-A-1");
    expect(job.returnvalue.pid).not.toBe(pid);

    // The interrupted charge never ran again; the model was told its outcome is unknown.
    expect(count("start charge A-1")).toBe(1);
    expect(count("end charge A-1")).toBe(0);
    // The idempotent lookup ran again, in another worker, and finished there.
    expect(count("start lookup A-1")).toBe(2);
    expect(traceLines().filter((l) => l.startsWith("end lookup A-1 "))).toEqual([
      expect.not.stringContaining(` ${pid}`),
    ]);
    const results = states["A-1"]!.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results.map((r) => [r.toolName, r.isError, String(r.output)])).toEqual([
      ["charge", true, expect.stringContaining("outcome unknown")],
      ["lookup", false, "A-1: 2 items, shipped"],
    ]);
    for (const order of ["B-2", "C-3"]) {
      expect([count(`start charge ${order}`), count(`end charge ${order}`)]).toEqual([1, 1]);
    }
  });

  it("a run paused for approval resumes on a decision job; a duplicate decision runs nothing", {
    timeout: 60_000,
  }, async () => {
    await enqueueRun(queue, "refund-R-9", "refund R-9");
    const paused = await finished("start-refund-R-9");
    expect(paused.job.returnvalue.status).toBe("needs_approval");

    const page = await store.listPending();
    const waiting = page.runs.find((run) => run.runId === "refund-R-9");
    expect(waiting?.pending.map((call) => [call.toolName, call.args])).toEqual([
      ["refund", { order: "R-9" }],
    ]);
    expect(count("start refund R-9")).toBe(0);

    const decisions = Object.fromEntries(
      waiting!.pending.map((call) => [
        call.toolCallId,
        { approve: true as const, digest: call.digest },
      ]),
    );
    // Through the inbox's worker: the decision goes on the queue, the events come back live.
    inbox = queueInboxWorker(queue, redis, prefix);
    // No resume of the run yet: nothing to watch, said at once (the inbox's 404).
    expect(await inbox.events("refund-R-9")).toBeUndefined();
    await inbox.resume("refund-R-9", decisions);
    // A second submit of a decision on the same paused state (another tab) is refused.
    await expect(inbox.resume("refund-R-9", decisions)).rejects.toThrow(
      new ResumeError(
        "this decision was already made (one on this paused state of run refund-R-9 was sent); reload",
      ),
    );
    const events: LoopEvent[] = [];
    let ended: true | Error | undefined;
    void (async () => {
      for await (const event of (await inbox!.events("refund-R-9"))!) events.push(event);
    })().then(
      () => (ended = true),
      (error: Error) => (ended = error),
    );
    const again = await enqueueDecision(queue, "refund-R-9", decisions);
    const [first] = await queue
      .getJobs(["waiting", "active", "completed", "failed", "delayed"])
      .then((jobs) => jobs.filter((job) => job.data.kind === "resume" && job.id !== again.id));
    expect(first, "the inbox's decision is a job on the queue").toBeDefined();
    const outcomes = [];
    for (const job of [first!, again]) {
      const { state, job: done } = await finished(job.id!);
      expect(state, done.failedReason).toBe("completed");
      outcomes.push((done.returnvalue as { status: string }).status);
    }
    expect(outcomes.sort()).toEqual(["completed", "skipped"]);
    expect((await settled("refund-R-9")).status).toBe("completed");
    expect([count("start refund R-9"), count("end refund R-9")]).toEqual([1, 1]);
    expect((await store.listPending()).runs.map((run) => run.runId)).not.toContain("refund-R-9");

    // The inbox read the resume's events, from its start to the run's end.
    expect(await waitFor("the inbox's event stream to end", () => ended)).toBe(true);
    expect(events[0]).toMatchObject({ type: "run-start", runId: "refund-R-9", resumed: true });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool-decision", by: "approval" }),
    );
    expect(events.at(-1)).toMatchObject({ type: "run-finish", status: "completed" });
  });
});
