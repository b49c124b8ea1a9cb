/**
 * Fencing survives a store that forgot: after Redis restarts without persistence (or is
 * flushed), a new run of the same runId gets a token greater than the stalled old owner's, so
 * the old owner's writes are refused and its next tool never runs; an owner whose run the
 * store forgot hears that the store lost the run's data. Against a redis-server this file
 * starts itself on 127.0.0.1 (no persistence) and restarts; the file store's lost lease record
 * needs no server.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import {
  AgentLoop,
  memoryRunStore,
  type RunLease,
  type RunStore,
  type RunStoreOptions,
  StoreError,
  tool,
} from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { redisRunStore } from "tollgate/redis";
import { functionProvider, runStoreConformance } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { z } from "zod";
import { fileNameOf } from "../../src/file-store/file-names.js";
import { stateOf } from "../support/run-states.js";

const FILE = "test/features/lost-store-data.test.ts";

/** `redis-server` on the PATH, or undefined after saying why the Redis part skips (fails under TOLLGATE_REQUIRE_SERVICES=1). */
function redisServerBin(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const bin = found.stdout.trim();
  if (found.status === 0 && bin) return bin;
  if (process.env.TOLLGATE_REQUIRE_SERVICES === "1") {
    throw new Error("TOLLGATE_REQUIRE_SERVICES=1 and redis-server is not on the PATH");
  }
  console.warn(`${FILE} (SKIPPED the Redis part: redis-server is not on the PATH)`);
  return undefined;
}

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A redis-server of this file's own, without persistence: `restart()` loses everything it held. */
class ForgetfulRedis {
  #process: ChildProcess | undefined;
  constructor(
    readonly bin: string,
    readonly port: number,
    readonly dir: string,
  ) {}

  async start(): Promise<void> {
    const server = spawn(
      this.bin,
      ["--bind", "127.0.0.1", "--port", String(this.port), "--save", "", "--appendonly", "no"],
      { cwd: this.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    this.#process = server;
    await new Promise<void>((resolve, reject) => {
      let output = "";
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) resolve();
      };
      server.stdout?.on("data", onData);
      server.stderr?.on("data", onData);
      server.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  }

  async stop(): Promise<void> {
    const server = this.#process;
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }

  /** A restart without persistence: the server comes back empty, on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * The agent of the issue: step 1 calls `stall` (which waits for `stalled.open`), step 2 calls
 * `notify`, then the model answers. `notified` records who notified.
 */
function notifyingLoop(store: RunStore, who: string, notified: string[], stall?: Promise<void>) {
  const started = gate();
  const tools = [
    tool({
      name: "stall",
      description: "Waits (a long GC pause, a slow API)",
      input: z.object({}),
      execute: async () => {
        started.open();
        await stall;
        return "done waiting";
      },
    }),
    tool({
      name: "notify",
      description: "Notifies the customer (not idempotent)",
      input: z.object({}),
      execute: () => {
        notified.push(who);
        return "notified";
      },
    }),
  ];
  const provider = functionProvider((request) => {
    const results = request.messages.filter((message) => message.role === "tool").length;
    const first = stall ? "stall" : "notify";
    if (results === 0) return { toolCalls: [{ name: first, args: {} }] };
    if (results === 1 && stall) return { toolCalls: [{ name: "notify", args: {} }] };
    return { text: `notified by ${who}` };
  });
  return { loop: new AgentLoop({ provider, tools, store }), stallStarted: started.opened };
}

const bin = redisServerBin();

describe.skipIf(!bin)("redisRunStore after Redis lost its data", () => {
  let redis: ForgetfulRedis;
  const clients: Redis[] = [];
  const dir = mkdtempSync(join(tmpdir(), "tollgate-fencing-redis-"));

  beforeAll(async () => {
    redis = new ForgetfulRedis(bin as string, await freePort(), dir);
    await redis.start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A client that reconnects after the restart (the default retry strategy). */
  const connect = () => {
    const client = new Redis({ host: "127.0.0.1", port: redis.port });
    client.on("error", () => {}); // refused connections while the server restarts
    clients.push(client);
    return client;
  };
  const prefix = () => `fencing:${globalThis.crypto.randomUUID()}:`;

  it("a new run of the runId after a restart fences the stalled old owner out: notify runs once, and the new run's state stays", async () => {
    const shared = prefix();
    const stall = gate();
    const notified: string[] = [];
    const old = notifyingLoop(
      redisRunStore(connect(), { prefix: shared }),
      "old",
      notified,
      stall.opened,
    );
    const oldRun = old.loop.run("Refund order 7 and tell the customer", { runId: "order-7" });
    oldRun.catch(() => {});
    await old.stallStarted;

    await redis.restart(); // no persistence: the lease, the token and the checkpoint are gone

    const fresh = notifyingLoop(redisRunStore(connect(), { prefix: shared }), "new", notified);
    const done = await fresh.loop.run("Refund order 7 and tell the customer", { runId: "order-7" });
    expect(done.status).toBe("completed");

    stall.open(); // the old owner wakes up and checkpoints before its next tool
    const error = await oldRun.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/no longer holds its lease/);
    expect(notified).toEqual(["new"]);
    const stored = await redisRunStore(connect(), { prefix: shared }).get("order-7");
    expect(stored).toMatchObject({ stateId: done.state.stateId, status: "completed" });
  });

  it("a token after a FLUSHALL is greater than every token before, and the old lease writes nothing", async () => {
    const client = connect();
    const store = redisRunStore(client, { prefix: prefix(), leaseMs: 60_000 });
    const tokens: number[] = [];
    for (let i = 0; i < 3; i++) {
      const lease = (await store.acquire("run"))!;
      tokens.push(lease.token);
      await store.release(lease);
    }
    const old = (await store.acquire("run"))!;
    await client.flushall();
    const next = (await store.acquire("run"))!;
    expect(next.token).toBeGreaterThan(Math.max(...tokens, old.token));
    expect(await store.renew(old)).toBe(false);
    expect(await store.put(stateOf("run", "from the old owner"), old)).toBe(false);
    expect(await store.put(stateOf("run", "from the new owner"), next)).toBe(true);
    expect(await store.get("run")).toMatchObject({
      messages: [{ content: expect.stringContaining("from the new owner") }],
    });
  });

  it("the old owner's renew and put, before anyone took the run again, say the store lost the run's data", async () => {
    const client = connect();
    const store = redisRunStore(client, { prefix: prefix() });
    const lease = (await store.acquire("run"))!;
    await client.flushall();
    await expect(store.renew(lease)).rejects.toThrow(/lost the run's data/);
    await expect(store.put(stateOf("run", "late"), lease)).rejects.toThrow(/lost the run's data/);
    expect(await store.get("run")).toBeUndefined();
  });

  it("a run whose data the store lost stops with a StoreError that says so, and runs nothing more", async () => {
    const client = connect();
    const stall = gate();
    const notified: string[] = [];
    const store = redisRunStore(client, { prefix: prefix(), leaseMs: 150 });
    const { loop, stallStarted } = notifyingLoop(store, "old", notified, stall.opened);
    const run = loop.run("Refund order 8", { runId: "order-8" });
    run.catch(() => {});
    await stallStarted;
    await client.flushall(); // the next renewal (every 50 ms) finds no token
    const error = await run.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    stall.open();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/the store lost the run's data/);
    expect((error as StoreError).message).not.toMatch(/another process/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notified).toEqual([]);
  });
});

describe("fileRunStore after its lease record was lost", () => {
  it("a renew or put under the lost lease says the store lost the run's data; a new lease's token is greater", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-fencing-file-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const store = fileRunStore(dir);
    const lease = (await store.acquire("run"))!;
    await rm(join(dir, "leases", `${fileNameOf("run")}.json`)); // a restore, a cleanup script
    await expect(store.renew(lease)).rejects.toThrow(/lost the run's data/);
    await expect(store.put(stateOf("run", "late"), lease)).rejects.toThrow(/lost the run's data/);
    const next = (await store.acquire("run"))!;
    expect(next.token).toBeGreaterThan(lease.token);
    expect(await store.put(stateOf("run", "late"), lease)).toBe(false);
  });
});

describe("runStoreConformance's check of a store that lost its data", () => {
  const LOSS_CHECK = "fencing: a token after the store lost a run";
  const lossCheck = (checks: ReturnType<typeof runStoreConformance>) => {
    const found = checks.filter((check) => check.name.startsWith(LOSS_CHECK));
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it("fails a store whose tokens start again from 1 when it forgot (a counter in its own backend)", async () => {
    const restarting = (options?: RunStoreOptions): RunStore => {
      const store = memoryRunStore(options);
      const inner = new Map<number, RunLease>(); // its own token → the memory store's lease
      const real = (lease: RunLease) => inner.get(lease.token) ?? lease;
      return {
        ...store,
        acquire: async (runId) => {
          const lease = await store.acquire(runId);
          if (!lease) return undefined;
          inner.set(inner.size + 1, lease);
          return { ...lease, token: inner.size };
        },
        renew: (lease) => store.renew(real(lease)),
        put: (state, lease) => store.put(state, real(lease)),
        release: (lease) => store.release(real(lease)),
      };
    };
    await expect(lossCheck(runStoreConformance(restarting)).run()).rejects.toThrow(
      "after the store lost the run, acquire gave token 1, not greater than the tokens before ([1,2,3]): a stalled owner's writes would pass",
    );
  });

  it("runs on the same store after `forget` made its backend forget, and checks `forget`", async () => {
    const made: RunStore[] = [];
    const make = () => {
      const store = memoryRunStore();
      made.push(store);
      return store;
    };
    const forget = vi.fn();
    await lossCheck(runStoreConformance(make, { forget })).run();
    expect(made).toHaveLength(1);
    expect(forget).toHaveBeenCalledExactlyOnceWith(made[0]);
    expect(() => runStoreConformance(make, { forget: "FLUSHALL" as never })).toThrow(
      "runStoreConformance: forget must be a function that empties the store",
    );
  });
});
