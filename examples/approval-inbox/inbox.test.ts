/**
 * The approval inbox end to end: its HTTP API refuses what it does not expect (nothing
 * resumes), and in headless Chromium (Debian's, driven by playwright-core) a human sees the
 * waiting calls and transcripts, gets a schema error for bad edited args, approves edited args
 * and watches the run finish live, refuses another call and reads the model's reply. A
 * screenshot of the page as it first loads is compared with the committed baseline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { FullRunStore } from "tollgate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectScreenshot } from "../../test/support/screenshots.js";
import { CHROMIUM_ARGS, chromiumPath } from "../../test/support/services.js";
import { demoAgent, demoTools, seedRuns, sideEffects } from "./demo-agent.js";
import { inProcessWorker } from "./in-process.js";
import { createInbox, type Inbox, type InboxWorker } from "./inbox.js";

const FILE = "examples/approval-inbox/inbox.test.ts";
const BASELINE = fileURLToPath(new URL("./__screenshots__/inbox.png", import.meta.url));
const VIEWPORT = { width: 1100, height: 900 };

/** An inbox over the demo agent, its two runs paused; `inbox.close()` stops it. */
async function startInbox(
  worker: (real: InboxWorker) => InboxWorker = (real) => real,
): Promise<{ store: FullRunStore; inbox: Inbox; url: string; errors: unknown[] }> {
  const { store, loop } = demoAgent();
  await seedRuns(loop);
  const errors: unknown[] = [];
  const inbox = createInbox({
    store,
    tools: demoTools,
    ...worker(inProcessWorker(loop)),
    onError: (error) => errors.push(error),
  });
  return { store, inbox, url: await inbox.listen(), errors };
}

describe("the inbox's API fails closed", () => {
  let started: Awaited<ReturnType<typeof startInbox>> | undefined;
  beforeAll(async () => {
    started = await startInbox();
  });
  afterAll(async () => {
    await started?.inbox.close();
  });

  const post = (path: string, body: string, type = "application/json") =>
    fetch(new URL(path, started!.url), {
      method: "POST",
      headers: { "content-type": type },
      body,
    }).then(async (response) => ({ status: response.status, ...(await response.json()) }));
  const stateOf = async (runId: string) => (await started!.store.get(runId))!;

  it("refuses unknown runs and calls, stale states, missing decisions and bad bodies", async () => {
    const { stateId } = await stateOf("refund-A-1042");
    const decisions = (body: unknown) =>
      post("/api/runs/refund-A-1042/decisions", JSON.stringify(body));
    expect(
      await post("/api/runs/nope/decisions", JSON.stringify({ stateId, decisions: {} })),
    ).toMatchObject({ status: 404, error: "no run nope in the store" });
    expect(await decisions({ stateId: "old", decisions: {} })).toMatchObject({
      status: 409,
      error: expect.stringContaining("moved on since the page loaded"),
    });
    expect(await decisions({ stateId, decisions: {} })).toMatchObject({
      status: 400,
      error: "no decision for refund (call call_0_0)",
      callKey: "call_0_0",
    });
    expect(
      await decisions({ stateId, decisions: { call_0_0: { approve: true }, other: {} } }),
    ).toMatchObject({ status: 400, error: "run refund-A-1042 has no waiting call other" });
    expect(await decisions({ stateId, decisions: { call_0_0: { approved: true } } })).toMatchObject(
      { status: 400, error: "the decision for call_0_0 needs approve: true or false" },
    );
    expect(
      await decisions({ stateId, decisions: { call_0_0: { approve: false, reason: " " } } }),
    ).toMatchObject({ status: 400, error: expect.stringContaining("a refusal needs a reason") });
    expect(
      await decisions({ stateId, decisions: { call_0_0: { approve: true, digest: "x" } } }),
    ).toMatchObject({ status: 400, error: "unexpected field digest in the decision for call_0_0" });
    expect(await post("/api/runs/refund-A-1042/decisions", "{not json")).toMatchObject({
      status: 400,
      error: "the body is not valid JSON",
    });
    expect(
      await post("/api/runs/refund-A-1042/decisions", JSON.stringify({ stateId }), "text/plain"),
    ).toMatchObject({ status: 415 });
    // Nothing ran, and the run still waits in the state the page showed.
    expect(sideEffects).toEqual([]);
    expect(await stateOf("refund-A-1042")).toMatchObject({ stateId, status: "needs_approval" });
  });

  it("resumes a state once: a second submit of the same decisions is refused", async () => {
    const { stateId } = await stateOf("email-ana");
    const body = JSON.stringify({
      stateId,
      decisions: { call_0_0: { approve: false, reason: "not today" } },
    });
    expect(await post("/api/runs/email-ana/decisions", body)).toMatchObject({ status: 202 });
    expect(await post("/api/runs/email-ana/decisions", body)).toMatchObject({
      status: 409,
      error: expect.stringMatching(/reload/),
    });
  });

  it("a malformed percent-encoding in a run id is a 400, not a failure of the inbox", async () => {
    expect(await post("/api/runs/%E0%A4%A/decisions", "{}")).toEqual({
      status: 400,
      error: "the run id in the URL is malformed (a bad percent-encoding)",
    });
    const events = await fetch(new URL("/api/runs/%E0%A4%A/events", started!.url));
    expect(events.status).toBe(400);
    expect(started!.errors).toEqual([]);
  });

  it("a known path asked with another method is a 405 that says which method it takes", async () => {
    const ask = async (method: string, path: string) => {
      const response = await fetch(new URL(path, started!.url), { method });
      const { error } = (await response.json()) as { error: string };
      return { status: response.status, allow: response.headers.get("allow"), error };
    };
    expect(await ask("DELETE", "/api/pending")).toEqual({
      status: 405,
      allow: "GET",
      error: "/api/pending takes GET, not DELETE",
    });
    expect(await ask("GET", "/api/runs/refund-A-1042/decisions")).toMatchObject({
      status: 405,
      allow: "POST",
    });
    expect(await ask("POST", "/api/runs/refund-A-1042/events")).toMatchObject({
      status: 405,
      allow: "GET",
    });
    expect(await ask("PUT", "/")).toMatchObject({ status: 405, allow: "GET" });
    expect(await ask("GET", "/nope")).toMatchObject({ status: 404, allow: null });
    expect(started!.errors).toEqual([]);
  });

  it("a run being resumed elsewhere (its lease held) is a 409 a human understands", async () => {
    const { stateId } = await stateOf("refund-A-1042");
    const lease = await started!.store.acquire("refund-A-1042"); // as a resume under way does
    try {
      const body = JSON.stringify({ stateId, decisions: { call_0_0: { approve: true } } });
      expect(await post("/api/runs/refund-A-1042/decisions", body)).toEqual({
        status: 409,
        error: "this run is already being resumed (a decision was just sent); reload to see it",
      });
    } finally {
      await started!.store.release(lease!);
    }
    expect(sideEffects).toEqual([]);
    expect(await stateOf("refund-A-1042")).toMatchObject({ stateId, status: "needs_approval" });
  });
});

describe("a decision another tab made first", () => {
  it("is a 409 saying the decision was already made", async () => {
    // Another tab's request passed the inbox's checks too, and its resume went first.
    const { store, inbox, url, errors } = await startInbox((real) => ({
      events: real.events,
      async resume(runId, decisions) {
        await real.resume(runId, decisions);
        for await (const _ of (await real.events(runId))!);
        await real.resume(runId, decisions);
      },
    }));
    try {
      const { stateId } = (await store.get("email-ana"))!;
      const response = await fetch(new URL("/api/runs/email-ana/decisions", url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          stateId,
          decisions: { call_0_0: { approve: false, reason: "not today" } },
        }),
      });
      expect({ status: response.status, ...(await response.json()) }).toEqual({
        status: 409,
        error: "this decision was already made; reload",
      });
      expect(errors).toEqual([]);
    } finally {
      await inbox.close();
    }
  });
});

const executablePath = chromiumPath(FILE);

describe.skipIf(!executablePath)("the inbox in headless Chromium", () => {
  let started: Awaited<ReturnType<typeof startInbox>> | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const userDataDir = mkdtempSync(join(tmpdir(), "tollgate-inbox-chromium-"));

  beforeAll(async () => {
    sideEffects.length = 0;
    started = await startInbox();
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: executablePath!,
      args: CHROMIUM_ARGS,
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    await page.goto(started.url);
    await page.locator("body[data-loaded]").waitFor();
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await started?.inbox.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  const card = (runId: string) => page.locator(`section[data-run="${runId}"]`);

  it("lists each waiting call, its args and the run's transcript", async () => {
    await expect
      .poll(() => page.getByTestId("summary").textContent())
      .toBe("2 runs wait for a decision on 2 calls.");
    const refund = card("refund-A-1042");
    expect(await refund.locator(".tool-name").textContent()).toBe("refund");
    expect(JSON.parse(await refund.locator("textarea").inputValue())).toEqual({
      order: "A-1042",
      amountEur: 120,
    });
    expect(await refund.getByTestId("transcript").textContent()).toContain(
      "Please refund order A-1042: the parcel arrived broken.",
    );
    expect(await card("email-ana").locator(".tool-name").textContent()).toBe("send_email");
  });

  it("looks as the committed screenshot does", async (context) => {
    const png = await page.screenshot({ fullPage: true });
    expectScreenshot(png, BASELINE, FILE, (why) => context.skip(why));
  });

  it("shows the schema's error for invalid edited args, and runs nothing", async () => {
    const refund = card("refund-A-1042");
    const { stateId } = (await started!.store.get("refund-A-1042"))!;
    await refund.locator("textarea").fill('{ "order": "A-1042", "amountEur": -5 }');
    await refund.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => refund.getByTestId("call-error").textContent())
      .toMatch(/^invalid args for refund: amountEur: .*>0/);
    expect(sideEffects).toEqual([]);
    expect(await started!.store.get("refund-A-1042")).toMatchObject({
      stateId,
      status: "needs_approval",
    });
  });

  it("approves edited args: the run resumes and the page shows its final answer live", async () => {
    const refund = card("refund-A-1042");
    await refund.locator("textarea").fill('{ "order": "A-1042", "amountEur": 80 }');
    await refund.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => refund.getByTestId("answer").textContent())
      .toBe("Refunded 80 EUR for order A-1042.");
    const events = await refund.getByTestId("events").locator("li").allTextContents();
    expect(events).toEqual([
      "refund: allow by approval",
      'refund → {"refunded":"A-1042","amountEur":80}',
      "run completed",
    ]);
    expect(await refund.getByTestId("status").textContent()).toBe("completed");
    expect(sideEffects).toEqual(["refund A-1042 80"]);
  });

  it("refuses a call with a reason: the model's reply shows, and nothing ran", async () => {
    const email = card("email-ana");
    await email.getByLabel("reason to refuse send_email").fill("Ana asked not to be e-mailed");
    await email.getByRole("button", { name: "Deny" }).click();
    await expect
      .poll(() => email.getByTestId("answer").textContent())
      .toMatch(/^I did not go ahead: .*Ana asked not to be e-mailed/);
    expect(sideEffects).toEqual(["refund A-1042 80"]);
    await page.reload();
    await expect
      .poll(() => page.getByTestId("summary").textContent())
      .toBe("Nothing waits for a decision.");
  });
});
