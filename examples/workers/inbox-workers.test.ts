/**
 * The approval inbox of examples/approval-inbox/ against the worker pool of examples/workers/:
 * the runs pause on real worker processes, the inbox (in this process) lists them from the
 * shared Redis store, a human decides in headless Chromium, the decision goes on the BullMQ
 * queue, a worker process resumes the run, and the page shows its events and final answer from
 * the Redis stream the workers publish to.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { FullRunStore } from "tollgate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, chromiumPath, serviceUrl } from "../../test/support/services.js";
import { workerPool } from "../../test/support/worker-processes.js";
import { createInbox, type Inbox } from "../approval-inbox/inbox.js";
import { ordersTools } from "./agent.js";
import { queueInboxWorker } from "./events.js";
import { enqueueRun, runsQueue } from "./pool.js";
import { sharedStore } from "./store.js";

const FILE = "examples/workers/inbox-workers.test.ts";
const url = serviceUrl("redis", FILE);
const executablePath = chromiumPath(FILE);
const LEASE_MS = 10_000;

describe.skipIf(!url || !executablePath)("the approval inbox over the worker pool", () => {
  const tag = `inbox-workers-test-${process.pid}-${Date.now()}`;
  const prefix = `${tag}:`;
  const dir = mkdtempSync(join(tmpdir(), "tollgate-inbox-workers-"));
  const userDataDir = mkdtempSync(join(tmpdir(), "tollgate-inbox-workers-chromium-"));
  const pool = workerPool({ url: url!, dir, queue: tag, prefix });
  const { traceLines, count } = pool;
  let redis: Redis | undefined;
  let store: FullRunStore;
  let queue: ReturnType<typeof runsQueue> | undefined;
  let worker: ReturnType<typeof queueInboxWorker> | undefined;
  let inbox: Inbox | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  /** A job's end state and outcome, once BullMQ has one. */
  const finished = (id: string) => pool.finished(queue!, id);
  /** The decision jobs on the queue, in any state. */
  const resumeJobs = async () =>
    (await queue!.getJobs(["waiting", "active", "completed", "failed", "delayed"])).filter(
      (job) => job.data.kind === "resume",
    );
  const card = (runId: string) => page.locator(`section[data-run="${runId}"]`);

  beforeAll(async () => {
    redis = new Redis(url!, { maxRetriesPerRequest: null });
    store = sharedStore(redis, { leaseMs: LEASE_MS, prefix });
    queue = runsQueue(redis, { attempts: 20, backoffMs: 200 }, tag);
    await Promise.all([pool.start(), pool.start()]);
    for (const order of ["R-1", "R-2"])
      await enqueueRun(queue, `refund-${order}`, `refund ${order}`);
    for (const order of ["R-1", "R-2"]) {
      const { job, state } = await finished(`start-refund-${order}`);
      expect(state, `the start job of ${order}: ${job.failedReason}`).toBe("completed");
      expect(job.returnvalue.status, `refund ${order} pauses for approval`).toBe("needs_approval");
    }

    worker = queueInboxWorker(queue, redis, prefix);
    inbox = createInbox({
      store,
      tools: ordersTools(join(dir, "trace.log")), // for their schemas: the inbox runs none
      ...worker, // resume: the decision goes on the queue; events: from the workers' stream
    });
    const address = await inbox.listen();
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: executablePath!,
      args: CHROMIUM_ARGS,
      viewport: { width: 1100, height: 900 },
    });
    page = await context.newPage();
    await page.goto(address);
    await page.locator("body[data-loaded]").waitFor({ timeout: 20_000 });
  }, 90_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await inbox?.close().catch(() => {});
    worker?.close();
    await pool.stop();
    await pool.cleanUp({ queue, redis });
    rmSync(dir, { recursive: true, force: true });
    rmSync(userDataDir, { recursive: true, force: true });
  }, 30_000);

  it("lists the runs paused on the workers, with each call and transcript", async () => {
    await expect
      .poll(() => page.getByTestId("summary").textContent())
      .toBe("2 runs wait for a decision on 2 calls.");
    const refund = card("refund-R-1");
    expect(await refund.locator(".tool-name").textContent()).toBe("refund");
    expect(JSON.parse(await refund.locator("textarea").inputValue())).toEqual({ order: "R-1" });
    expect(await refund.getByTestId("transcript").textContent()).toContain("refund R-1");
    expect(await card("refund-R-2").locator(".tool-name").textContent()).toBe("refund");
  });

  it("shows the schema's error for invalid edited args, and enqueues nothing", async () => {
    const refund = card("refund-R-1");
    const { stateId } = (await store.get("refund-R-1"))!;
    await refund.locator("textarea").fill('{ "order": 42 }');
    await refund.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => refund.getByTestId("call-error").textContent())
      .toMatch(/^invalid args for refund: order: /);
    expect(await resumeJobs()).toEqual([]);
    expect(await store.get("refund-R-1")).toMatchObject({ stateId, status: "needs_approval" });
    expect(count("start refund")).toBe(0);
  });

  it("approves edited args: a worker process resumes the run, the page shows it live", {
    timeout: 60_000,
  }, async () => {
    const refund = card("refund-R-1");
    await refund.locator("textarea").fill('{ "order": "R-1-shipping" }');
    await refund.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => refund.getByTestId("answer").textContent(), { timeout: 30_000 })
      .toBe("refund R-1: refunded R-1-shipping");
    expect(await refund.getByTestId("events").locator("li").allTextContents()).toEqual([
      "refund: allow by approval",
      'refund → "refunded R-1-shipping"',
      "run completed",
    ]);
    expect(await refund.getByTestId("status").textContent()).toBe("completed");

    // One decision job, run by a worker process: the refund ran there once, with the edit.
    const jobs = await resumeJobs();
    expect(jobs.map((job) => job.data.runId)).toEqual(["refund-R-1"]);
    const { job, state } = await finished(jobs[0]!.id!);
    expect(state, job.failedReason).toBe("completed");
    const workerPids = pool.workers.map((w) => w.process.pid);
    expect(workerPids).toContain(job.returnvalue.pid);
    const ran = traceLines().filter((line) => / refund /.test(line));
    expect(ran).toEqual([
      `start refund R-1-shipping ${job.returnvalue.pid}`,
      `end refund R-1-shipping ${job.returnvalue.pid}`,
    ]);
    expect(job.returnvalue.pid).not.toBe(process.pid);

    // The store lists the approved run no more: a reload shows only the other one.
    await page.reload();
    await page.locator("body[data-loaded]").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("summary").textContent()).toBe(
      "1 run waits for a decision on 1 call.",
    );
    expect(
      await page
        .locator("section[data-run]")
        .evaluateAll((cards) => cards.map((card) => card.getAttribute("data-run"))),
    ).toEqual(["refund-R-2"]);
  });

  it("refuses the other call with a reason: the model's reply shows, nothing ran", {
    timeout: 60_000,
  }, async () => {
    const other = card("refund-R-2");
    await other.getByLabel("reason to refuse refund").fill("R-2 was never paid");
    await other.getByRole("button", { name: "Deny" }).click();
    await expect
      .poll(() => other.getByTestId("answer").textContent(), { timeout: 30_000 })
      .toMatch(/^refund R-2: .*R-2 was never paid/);
    expect(await other.getByTestId("status").textContent()).toBe("completed");
    expect(count("start refund R-2")).toBe(0);
    const jobs = await resumeJobs();
    for (const { id } of jobs) {
      const { job, state } = await finished(id!);
      expect(state, job.failedReason).toBe("completed");
    }

    // Both runs finished in the store: a reload lists none.
    await page.reload();
    await page.locator("body[data-loaded]").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("summary").textContent()).toBe("Nothing waits for a decision.");
    expect(await page.locator("section[data-run]").count()).toBe(0);
    expect(traceLines().filter((line) => / refund /.test(line))).toHaveLength(2);
  });
});
