/**
 * tollgate/redis against a real redis-server (TOLLGATE_REDIS_URL; `npm run test:services`
 * starts one): the whole RunStore contract, then what is Redis's own: TTLs, fencing across
 * delete and expiry, leases on the server's clock, checked options, a closed client, races
 * between clients, and a run paused in one loop and resumed in another.
 */
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { AgentLoop, type RunState, tool } from "tollgate";
import { redisRunStore } from "tollgate/redis";
import { functionProvider, runStoreConformance } from "tollgate/testing";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { serviceUrl } from "../support/services.js";

const url = serviceUrl("redis", "test/redis/store.test.ts");

/** The ```ts block of a section of the stores guide (the excerpt of the example it links). */
function readmeSnippet(heading: string): string {
  const readme = readFileSync(new URL("../../docs/stores.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
}

describe("the stores guide's excerpt of examples/redis-store.ts", () => {
  it("removes the example's own keys, as its comment says, even when a step fails", () => {
    const code = readmeSnippet("## Redis");
    expect(code).toContain("// the example's own keys, removed at the end");
    expect(code).toMatch(
      /\} finally \{\s+const keys = await worker1\.keys\(`\$\{prefix\}\*`\);\s+if \(keys\.length > 0\) await worker1\.del\(\.\.\.keys\);\s+await Promise\.all\(\[worker1\.quit\(\), worker2\.quit\(\)\]\);\s+\}\n\}\n$/,
    );
  });
});

/**
 * A stand-in of the shape of a node-redis client (v4 and v5, from their published types:
 * `createClient()` gives `isOpen`, `sendCommand`, camel-case `evalSha`, and `eval`/`get` with
 * other signatures than ioredis's). Nothing is installed: the check is on the shape.
 */
class NodeRedisShaped {
  get isOpen() {
    return true;
  }
  get isReady() {
    return true;
  }
  async connect() {}
  async sendCommand(_args: string[]) {
    return null;
  }
  async eval(_script: string, _options?: { keys?: string[]; arguments?: string[] }) {
    throw new Error("ERR Error running script: wrong number of arguments");
  }
  async evalSha(_sha: string) {
    return null;
  }
  async get(_key: string) {
    return null;
  }
}

describe("redisRunStore's client check", () => {
  it("refuses a node-redis client by name, before its first script fails", () => {
    expect(() => redisRunStore(new NodeRedisShaped() as never)).toThrow(
      new TypeError(
        "redisRunStore: give an ioredis client (ioredis 5 or 6); node-redis is not supported",
      ),
    );
  });

  it("takes an ioredis client that is not connected yet (it has sendCommand too)", () => {
    const lazy = new Redis({ lazyConnect: true });
    expect(() => redisRunStore(lazy)).not.toThrow();
    lazy.disconnect();
  });
});

describe.skipIf(!url)("redisRunStore", () => {
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(url as string, { lazyConnect: false, maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };
  const redis = url ? connect() : (undefined as never);
  /** This file's keys, all under one root: removed at the end, so a shared server keeps none. */
  const root = `tollgate-test:${globalThis.crypto.randomUUID()}:`;
  /** A prefix no other test (or earlier run) uses. */
  const freshPrefix = () => `${root}${globalThis.crypto.randomUUID()}:`;
  afterAll(async () => {
    if (url) {
      const cleaner = new Redis(url);
      const keys = await cleaner.keys(`${root}*`);
      for (let i = 0; i < keys.length; i += 500) await cleaner.del(...keys.slice(i, i + 500));
      await cleaner.quit();
    }
    await Promise.all(clients.map((client) => client.quit().catch(() => {})));
  });

  describe("keeps the RunStore contract", () => {
    for (const check of runStoreConformance((options) =>
      redisRunStore(redis, { ...options, prefix: freshPrefix() }),
    )) {
      it(check.name, check.run);
    }
  });

  const state = (runId: string, status: RunState["status"]) =>
    ({
      version: 1,
      stateId: `${runId}-${status}-${globalThis.crypto.randomUUID()}`,
      runId,
      status,
      messages: [],
      steps: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    }) as unknown as RunState;

  it("gives a finished run's state a TTL, and none to paused or running ones", async () => {
    const prefix = freshPrefix();
    const store = redisRunStore(redis, { prefix, finishedTtlMs: 60_000 });
    const key = `${prefix}{run:r}:state`;
    const lease = (await store.acquire("r"))!;
    await store.put(state("r", "needs_approval"), lease);
    expect(await redis.pttl(key)).toBe(-1);
    await store.put(state("r", "completed"), lease);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.put(state("r", "running"), lease);
    expect(await redis.pttl(key)).toBe(-1);
    // The fencing counter never expires.
    expect(await redis.pttl(`${prefix}{run:r}:token`)).toBe(-1);
  });

  it("keeps the fencing counter across delete and the expiry of a finished run", async () => {
    const store = redisRunStore(redis, { prefix: freshPrefix(), finishedTtlMs: 50, leaseMs: 100 });
    const old = (await store.acquire("r"))!;
    await store.put(state("r", "completed"), old);
    await store.release(old);
    // The finished state expires by Redis's clock.
    await waitUntil(async () => (await store.get("r")) === undefined);
    const next = (await store.acquire("r"))!;
    expect(next.token).toBeGreaterThan(old.token);
    expect(await store.put(state("r", "running"), old)).toBe(false);
    await store.release(next);
    expect(await store.delete("r")).toBe(true);
    // delete raised the token: the last owner's lease writes nothing back.
    expect(await store.put(state("r", "running"), next)).toBe(false);
    expect(await store.get("r")).toBeUndefined();
    expect((await store.acquire("r"))!.token).toBeGreaterThan(next.token + 1);
  });

  it("lets a lease expire by the server's clock (PX)", async () => {
    const prefix = freshPrefix();
    const store = redisRunStore(redis, { prefix, leaseMs: 60_000 });
    const first = await store.acquire("r");
    const ttl = await redis.pttl(`${prefix}{run:r}:lease`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Expire it on the server: the run is free at once, whatever this host's clock says.
    await redis.pexpire(`${prefix}{run:r}:lease`, 1);
    await waitUntil(async () => (await redis.exists(`${prefix}{run:r}:lease`)) === 0);
    const second = await store.acquire("r");
    expect(second?.runId).toBe("r");
    expect(second?.token).toBeGreaterThan(first!.token);
  });

  it("refuses bad options and things that are not clients", () => {
    expect(() => redisRunStore("redis://127.0.0.1" as never)).toThrow(
      /give an ioredis client \(new Redis\(url\)\), not a string/,
    );
    expect(() => redisRunStore({} as never)).toThrow(TypeError);
    expect(() => redisRunStore(redis, { prefx: "a:" } as never)).toThrow(
      /unknown option `prefx`; did you mean `prefix`/,
    );
    expect(() => redisRunStore(redis, { leaseMs: 0 })).toThrow(/leaseMs/);
    expect(() => redisRunStore(redis, { leaseMs: 10.5 })).toThrow(
      "redisRunStore: leaseMs must be a positive whole number of milliseconds, not 10.5",
    );
    expect(() => redisRunStore({ host: "127.0.0.1", port: 6379 } as never)).toThrow(
      "not a config object? wrap it in `new Redis(…)`",
    );
    expect(() => redisRunStore(redis, { prefix: "" })).toThrow(/prefix/);
    expect(() => redisRunStore(redis, { finishedTtlMs: "7d" as never })).toThrow(/finishedTtlMs/);
    expect(() => redisRunStore(redis, { finishedTtlMs: "7d" as never })).toThrow(
      /finishedTtlMs must be a positive whole number of milliseconds, as leaseMs is, not the string "7d"/,
    );
    expect(() => redisRunStore(redis, { finishedTtlMs: 1.5 })).toThrow(/whole number/);
    expect(() => redisRunStore(redis, { finishedTtlMs: null as never })).toThrow(/null/);
    expect(() => redisRunStore(redis, [] as never)).toThrow(TypeError);
  });

  it("refuses a garbage cursor", async () => {
    const store = redisRunStore(redis, { prefix: freshPrefix() });
    await expect(store.listPending({ cursor: "nope" })).rejects.toThrow(TypeError);
    await expect(store.listPending({ limit: 0 })).rejects.toThrow(/limit/);
    await expect(store.listPending({ limit: "10" } as never)).rejects.toThrow(
      'limit must be an integer from 1 to 1000, not the string "10" (write 10, without quotes)',
    );
  });

  it("rejects every call on a closed client", async () => {
    const closed = connect();
    await closed.quit();
    const store = redisRunStore(closed, { prefix: freshPrefix() });
    const lease = { runId: "r", token: 1, ttlMs: 1000 };
    await expect(store.get("r")).rejects.toThrow(/closed/i);
    await expect(store.acquire("r")).rejects.toThrow(/closed/i);
    await expect(store.renew(lease)).rejects.toThrow(/closed/i);
    await expect(store.put(state("r", "running"), lease)).rejects.toThrow(/closed/i);
    await expect(store.release(lease)).rejects.toThrow(/closed/i);
    await expect(store.claim("s")).rejects.toThrow(/closed/i);
    await expect(store.listPending()).rejects.toThrow(/closed/i);
    await expect(store.delete("r")).rejects.toThrow(/closed/i);
  });

  it("rejects on an error of Redis, such as a key of the wrong type", async () => {
    const prefix = freshPrefix();
    const store = redisRunStore(redis, { prefix });
    await redis.hset(`${prefix}{run:r}:state`, "not", "a string");
    await redis.hset(`${prefix}{run:r}:token`, "not", "a counter");
    await expect(store.get("r")).rejects.toThrow(/WRONGTYPE/);
    await expect(store.acquire("r")).rejects.toThrow(/WRONGTYPE/);
    await expect(
      store.put(state("r", "running"), { runId: "r", token: 1, ttlMs: 1 }),
    ).rejects.toThrow(/WRONGTYPE/);
  });

  it("gives exactly one lease to many clients racing for one run", async () => {
    const prefix = freshPrefix();
    const stores = Array.from({ length: 8 }, () => redisRunStore(connect(), { prefix }));
    const leases = await Promise.all(
      stores.flatMap((store) => [store.acquire("race"), store.acquire("race")]),
    );
    expect(leases.filter(Boolean)).toHaveLength(1);
  });

  it("pauses a run in one loop and resumes it in another, each with its own client", async () => {
    const prefix = freshPrefix();
    const sent: string[] = [];
    const sendEmail = tool({
      name: "send_email",
      description: "Sends an email",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => {
        sent.push(to);
        return "sent";
      },
    });
    // A stand-in model that answers from the transcript, so either loop can take the next turn.
    const script = () =>
      functionProvider((request) =>
        request.messages.some((message) => message.role === "tool")
          ? { text: "Sent." }
          : { toolCalls: [{ name: "send_email", args: { to: "ana@example.com" } }] },
      );
    const first = new AgentLoop({
      provider: script(),
      tools: [sendEmail],
      store: redisRunStore(connect(), { prefix }),
    });
    const paused = await first.run("Mail Ana", { runId: "mail-1" });
    expect(paused.status).toBe("needs_approval");
    const listed = await redisRunStore(connect(), { prefix }).listPending();
    expect(listed.runs.map((run) => run.runId)).toEqual(["mail-1"]);

    const second = new AgentLoop({
      provider: script(),
      tools: [sendEmail],
      store: redisRunStore(connect(), { prefix }),
    });
    const [call] = paused.pending ?? [];
    const decisions = { [call!.toolCallId]: { approve: true as const, digest: call!.digest } };
    const done = await second.resume("mail-1", decisions);
    expect(done.status).toBe("completed");
    expect(sent).toEqual(["ana@example.com"]);
    await expect(second.resume(paused.state, decisions)).rejects.toThrow(/another state/);
    expect((await redisRunStore(redis, { prefix }).listPending()).runs).toEqual([]);
  });
});

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the condition never held");
}
