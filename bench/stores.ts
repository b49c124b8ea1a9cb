/**
 * Measurement 8: the run stores under load, as a worker pool uses them. Eight workers in one
 * process, each with its own connection (an ioredis client, a one-connection pg pool) and a new
 * `AgentLoop` and `scriptedProvider` per run, as a worker handling requests would:
 *
 * - runs/s: runs with one tool call (2 model calls, the store's acquire, 3 checkpoints, release);
 * - approval cycles/s: a run pauses on the tool's `needsApproval`, a new loop resumes it by id;
 * - claim latency: `acquire` of a fresh run id, p50 and p99, with all eight workers acquiring,
 *   beside the floor of one round trip to the same server (PING, `SELECT 1`) under the same load;
 * - the space a paused run takes: Redis's `used_memory`, the table's `pg_total_relation_size`,
 *   the folder's bytes on disk, the heap for the memory store; each a delta over N paused runs.
 *
 * Redis and PostgreSQL come from `TOLLGATE_REDIS_URL` / `TOLLGATE_POSTGRES_URL`
 * (`node scripts/with-services.mjs npm run bench` starts both on 127.0.0.1); without them their
 * rows say so and the memory and file stores are still measured.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Redis } from "ioredis";
import pg from "pg";
import { AgentLoop, type FullRunStore, memoryRunStore, type RunStoreOptions, tool } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { migratePostgresRunStore, postgresRunStore } from "tollgate/postgres";
import { redisRunStore } from "tollgate/redis";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** How many workers share the store. */
export const WORKERS = 8;

/** What one section run measures, per store. */
export interface StoreReading {
  store: string;
  /** Why the store was not measured (no server), when it was not. */
  skipped?: string;
  runsPerSecond?: number;
  cyclesPerSecond?: number;
  acquireP50Ms?: number;
  acquireP99Ms?: number;
  /** One round trip to the server under the same load (p50, p99), when there is a server. */
  floorP50Ms?: number;
  floorP99Ms?: number;
  bytesPerPausedRun?: number;
  /** What `bytesPerPausedRun` counts. */
  space?: string;
}

/** How long each measurement runs, and how many paused runs the space reading makes. */
export interface StoreBudget {
  seconds: number;
  pausedRuns: number;
}

/** One store under test: a store per worker, the floor round trip, the space it uses. */
interface Backend {
  name: string;
  store(options?: RunStoreOptions): FullRunStore;
  /** One round trip to the server, for the floor; absent for in-process stores. */
  ping?(worker: number): Promise<unknown>;
  /** Bytes the backend holds now, and what they are. */
  space(): Promise<number>;
  spaceKind: string;
  close(): Promise<void>;
}

const lookup = tool({
  name: "lookup",
  description: "Look up an order",
  input: z.object({ order: z.string() }),
  execute: ({ order }) => ({ order, status: "shipped" }),
});
const refund = tool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ order: z.string(), amountEur: z.number() }),
  needsApproval: true,
  execute: ({ order }) => ({ refunded: order }),
});

let sequence = 0;
const freshId = (label: string) => `${label}-${process.pid}-${++sequence}`;

/** A run with one tool call through a new loop, as a request handler would run it. */
async function oneToolRun(store: FullRunStore): Promise<void> {
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "lookup", args: { order: "A-1" } }] },
      { text: "It shipped." },
    ]),
    tools: [lookup],
    store,
  });
  const result = await loop.run("Where is order A-1?", { runId: freshId("run") });
  if (result.status !== "completed") throw new Error(`run ended ${result.status}`);
}

/** A run that pauses for approval, then a new loop that resumes it by id. */
async function approvalCycle(store: FullRunStore): Promise<void> {
  const script = () =>
    scriptedProvider([
      { toolCalls: [{ name: "refund", args: { order: "A-1", amountEur: 20 } }] },
      { text: "Refunded." },
    ]);
  const runId = freshId("cycle");
  const paused = await new AgentLoop({ provider: script(), tools: [refund], store }).run(
    "Refund A-1",
    { runId },
  );
  const call = paused.pending?.[0];
  if (paused.status !== "needs_approval" || !call) throw new Error(`run ended ${paused.status}`);
  // The second loop takes the model's next turn: a script that starts at the answer.
  const resumer = new AgentLoop({
    provider: scriptedProvider([{ text: "Refunded." }]),
    tools: [refund],
    store,
  });
  const done = await resumer.resume(runId, { [call.toolCallId]: { approve: true } });
  if (done.status !== "completed") throw new Error(`resume ended ${done.status}`);
}

/** Runs `work` on WORKERS workers for `seconds`; answers how many finished per second. */
async function throughput(
  stores: FullRunStore[],
  seconds: number,
  work: (store: FullRunStore) => Promise<void>,
): Promise<number> {
  for (const store of stores) await work(store); // warm each connection once
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    stores.map(async (store) => {
      while (performance.now() < until) {
        await work(store);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** Latencies (ms) of `op` on WORKERS workers at once for `seconds`. */
async function latencies(
  seconds: number,
  op: (worker: number) => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      while (performance.now() < until) {
        const start = performance.now();
        await op(worker);
        times.push(performance.now() - start);
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Measures one backend; closes it whatever happens. */
async function measure(backend: Backend, budget: StoreBudget): Promise<StoreReading> {
  try {
    const stores = Array.from({ length: WORKERS }, () => backend.store());
    const runsPerSecond = await throughput(stores, budget.seconds, oneToolRun);
    const cyclesPerSecond = await throughput(stores, budget.seconds, approvalCycle);
    const acquire = await latencies(budget.seconds, async (worker) => {
      const lease = await stores[worker]!.acquire(freshId("claim"));
      if (!lease) throw new Error("a fresh run id gave no lease");
    });
    const floor = backend.ping ? await latencies(budget.seconds, backend.ping) : undefined;
    const before = await backend.space();
    const store = stores[0]!;
    for (let i = 0; i < budget.pausedRuns; i++) {
      const paused = await new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: [{ name: "refund", args: { order: `A-${i}`, amountEur: 20 } }] },
        ]),
        tools: [refund],
        store,
      }).run(`Refund A-${i}`, { runId: freshId("paused") });
      if (paused.status !== "needs_approval") throw new Error(`run ended ${paused.status}`);
    }
    const bytesPerPausedRun = ((await backend.space()) - before) / budget.pausedRuns;
    return {
      store: backend.name,
      runsPerSecond,
      cyclesPerSecond,
      acquireP50Ms: percentile(acquire, 50),
      acquireP99Ms: percentile(acquire, 99),
      ...(floor ? { floorP50Ms: percentile(floor, 50), floorP99Ms: percentile(floor, 99) } : {}),
      bytesPerPausedRun,
      space: backend.spaceKind,
    };
  } finally {
    await backend.close();
  }
}

/** A forced full GC, for heap readings. */
function collect(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

function memoryBackend(): Backend {
  let kept: FullRunStore[] = [];
  return {
    name: "memoryRunStore",
    store: (options) => {
      const store = memoryRunStore(options);
      kept.push(store);
      return store;
    },
    space: async () => {
      collect();
      return process.memoryUsage().heapUsed;
    },
    spaceKind: "heap",
    close: async () => {
      kept = [];
    },
  };
}

function fileBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-store-"));
  return {
    name: "fileRunStore",
    store: (options) => fileRunStore(dir, options),
    space: async () => folderBytes(dir),
    spaceKind: "bytes of files",
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The bytes of every file under a folder. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}

function redisBackend(url: string): Backend {
  const prefix = `bench:${process.pid}:`;
  const clients = Array.from({ length: WORKERS }, () => new Redis(url));
  let next = 0;
  const usedMemory = async () => {
    const info = await clients[0]!.info("memory");
    return Number(/used_memory:(\d+)/.exec(info)?.[1]);
  };
  return {
    name: "redisRunStore",
    store: (options) => redisRunStore(clients[next++ % WORKERS]!, { ...options, prefix }),
    ping: (worker) => clients[worker]!.ping(),
    space: usedMemory,
    spaceKind: "Redis used_memory",
    close: async () => {
      const keys = await clients[0]!.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 500) await clients[0]!.del(...keys.slice(i, i + 500));
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
}

async function postgresBackend(url: string): Promise<Backend> {
  const table = `bench_runs_${process.pid}`;
  const pools = Array.from(
    { length: WORKERS },
    () => new pg.Pool({ connectionString: url, max: 1 }),
  );
  await migratePostgresRunStore(pools[0]!, { table });
  let next = 0;
  return {
    name: "postgresRunStore",
    store: (options) => postgresRunStore(pools[next++ % WORKERS]!, { ...options, table }),
    ping: (worker) => pools[worker]!.query("SELECT 1"),
    space: async () => {
      const { rows } = await pools[0]!.query(
        "SELECT pg_total_relation_size($1::regclass)::bigint AS bytes",
        [table],
      );
      return Number(rows[0].bytes);
    },
    spaceKind: "table + indexes (pg_total_relation_size)",
    close: async () => {
      await pools[0]!.query(`DROP TABLE IF EXISTS "${table}"`);
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

/** Every store, measured one after the other; a store without its server is skipped, saying why. */
export async function storeReadings(budget: StoreBudget): Promise<StoreReading[]> {
  const readings: StoreReading[] = [];
  readings.push(await measure(memoryBackend(), budget));
  readings.push(await measure(fileBackend(), budget));
  const redisUrl = process.env.TOLLGATE_REDIS_URL;
  readings.push(
    redisUrl
      ? await measure(redisBackend(redisUrl), budget)
      : { store: "redisRunStore", skipped: "TOLLGATE_REDIS_URL is not set" },
  );
  const postgresUrl = process.env.TOLLGATE_POSTGRES_URL;
  readings.push(
    postgresUrl
      ? await measure(await postgresBackend(postgresUrl), budget)
      : { store: "postgresRunStore", skipped: "TOLLGATE_POSTGRES_URL is not set" },
  );
  return readings;
}
