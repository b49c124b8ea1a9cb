/**
 * The inbox refuses what a browser can be tricked into sending: raw HTTP requests to the real
 * server on 127.0.0.1, with the `Host` a DNS-rebinding page sends (its own name, resolving to
 * 127.0.0.1) or the `Origin` of another site's page. Each is a 403 that runs nothing; the
 * inbox's own addresses still work.
 */
import { request } from "node:http";
import type { FullRunStore } from "tollgate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoAgent, demoTools, seedRuns, sideEffects } from "./demo-agent.js";
import { inProcessWorker } from "./in-process.js";
import { createInbox, type Inbox } from "./inbox.js";

/** What the server answered a raw request: its status and JSON body. */
interface Answer {
  status: number;
  body: { error?: string; runs?: unknown[] };
}

/** A raw request to 127.0.0.1:`port`, with exactly the headers given (Host among them). */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: "127.0.0.1", port, method, path, headers, setHost: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
        });
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

describe("the inbox answers only its own page", () => {
  let inbox: Inbox;
  let store: FullRunStore;
  let port: number;
  const errors: unknown[] = [];

  beforeAll(async () => {
    const agent = demoAgent();
    store = agent.store;
    await seedRuns(agent.loop);
    inbox = createInbox({
      store,
      tools: demoTools,
      ...inProcessWorker(agent.loop),
      onError: (error) => errors.push(error),
    });
    port = Number(new URL(await inbox.listen()).port);
  });
  afterAll(async () => {
    await inbox?.close();
  });

  /** The refund's approval, as the page would send it. */
  const approval = async () => {
    const { stateId } = (await store.get("refund-A-1042"))!;
    return JSON.stringify({ stateId, decisions: { call_0_0: { approve: true } } });
  };
  const approve = async (headers: Record<string, string>) =>
    raw(
      port,
      "POST",
      "/api/runs/refund-A-1042/decisions",
      {
        "content-type": "application/json",
        ...headers,
      },
      await approval(),
    );

  it("refuses a DNS-rebinding page's approval (Host rebind.example:<port>): a 403, and the refund does not run", async () => {
    const answer = await approve({ host: `rebind.example:${port}` });
    expect(answer.status).toBe(403);
    expect(answer.body.error).toContain(`not at Host rebind.example:${port}`);
    expect(answer.body.error).toContain(`127.0.0.1:${port}`);
    // Same origin as the rebound page, too: its Origin matches its Host, and is refused as well.
    const sameOrigin = await approve({
      host: `rebind.example:${port}`,
      origin: `http://rebind.example:${port}`,
    });
    expect(sameOrigin.status).toBe(403);
    expect(sideEffects).toEqual([]);
    expect(await store.get("refund-A-1042")).toMatchObject({ status: "needs_approval" });
  });

  it("refuses a rebound page's read of the waiting runs and their transcripts", async () => {
    const answer = await raw(port, "GET", "/api/pending", { host: `rebind.example:${port}` });
    expect(answer.status).toBe(403);
    expect(answer.body.runs).toBeUndefined();
    const page = await raw(port, "GET", "/", { host: `rebind.example:${port}` });
    expect(page.status).toBe(403);
  });

  it("refuses an Origin that is not the inbox's own, even with the right Host", async () => {
    for (const origin of [
      "http://evil.example",
      `http://rebind.example:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
      "null",
    ]) {
      const answer = await approve({ host: `127.0.0.1:${port}`, origin });
      expect(answer.status, origin).toBe(403);
      expect(answer.body.error, origin).toContain(
        `a request from the page of ${origin} is refused`,
      );
    }
    expect(sideEffects).toEqual([]);
    expect(await store.get("refund-A-1042")).toMatchObject({ status: "needs_approval" });
    expect(errors).toEqual([]);
  });

  it("answers only its own Host: 127.0.0.1, localhost and [::1] on its port (with or without its Origin), not another port", async () => {
    expect((await approve({ host: `127.0.0.1:${port + 1}` })).status).toBe(403);
    expect((await approve({ host: "127.0.0.1" })).status).toBe(403);
    // Without a Host, Node's server answers 400 before the inbox is asked; either way, no run.
    expect([400, 403]).toContain((await approve({})).status);
    expect(sideEffects).toEqual([]);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
    ]) {
      const answer = await raw(port, "GET", "/api/pending", { host });
      expect(answer.status, host).toBe(200);
      expect(answer.body.runs, host).toHaveLength(2);
    }
    const approved = await approve({
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(approved.status).toBe(202);
    await expect.poll(() => sideEffects).toEqual(["refund A-1042 120"]);
    expect(errors).toEqual([]);
  });
});

describe("createInbox's origins option", () => {
  const options = () => {
    const { store, loop } = demoAgent();
    return { store, tools: demoTools, ...inProcessWorker(loop) };
  };

  it("adds an address the inbox is served at, behind a proxy: its Host and Origin pass", async () => {
    const inbox = createInbox({ ...options(), origins: ["https://inbox.example.com"] });
    try {
      const port = Number(new URL(await inbox.listen()).port);
      const ok = await raw(port, "GET", "/api/pending", {
        host: "inbox.example.com",
        origin: "https://inbox.example.com",
      });
      expect(ok.status).toBe(200);
      const other = await raw(port, "GET", "/api/pending", {
        host: "inbox.example.com",
        origin: "http://inbox.example.com",
      });
      expect(other.status).toBe(403);
    } finally {
      await inbox.close();
    }
  });

  it("is checked when the inbox is made", () => {
    for (const origins of [
      "https://a.example",
      ["https://a.example/"],
      ["a.example"],
      ["ftp://a.example"],
      [5],
    ]) {
      expect(() => createInbox({ ...options(), origins: origins as never })).toThrow(TypeError);
    }
  });
});
