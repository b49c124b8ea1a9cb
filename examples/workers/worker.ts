/**
 * One worker process of the pool: takes jobs from the runs queue until SIGTERM or SIGINT.
 * Start as many as you like, on any machine that reaches Redis (the queue and the run store):
 *
 *   TOLLGATE_REDIS_URL=redis://127.0.0.1:6379 TOLLGATE_WORKERS_DIR=/tmp/pool npx tsx examples/workers/worker.ts
 *
 * TOLLGATE_WORKERS_DIR holds the agent's trace file (what its tools ran). Optional settings
 * (the SIGKILL test makes them short): TOLLGATE_LEASE_MS (the store's lease, default 30000),
 * TOLLGATE_LOCK_MS (BullMQ's lockDuration, default 30000), TOLLGATE_STALLED_MS (its
 * stalledInterval, default 30000), TOLLGATE_MAX_STALLED (its maxStalledCount, default 1),
 * TOLLGATE_QUEUE (the queue's name), TOLLGATE_PREFIX (the store's key prefix) and
 * TOLLGATE_CONNECT_MS (how long it waits for Redis at start, default 10000: it then says it
 * cannot reach Redis and exits 1).
 */
import { join } from "node:path";
import { Redis } from "ioredis";
import { ordersAgent } from "./agent.js";
import { publishEvents } from "./events.js";
import { RUNS_QUEUE, startWorker } from "./pool.js";
import { sharedStore } from "./store.js";

const redisUrl = process.env.TOLLGATE_REDIS_URL;
const dir = process.env.TOLLGATE_WORKERS_DIR;
if (!redisUrl || !dir) {
  console.error("set TOLLGATE_REDIS_URL and TOLLGATE_WORKERS_DIR");
  process.exit(2);
}
const ms = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

// BullMQ's workers block on Redis, so requests must wait for a reconnect, not fail.
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
// ioredis retries for ever and reports each failed try: say each distinct error once.
const reported = new Set<string>();
const reportOnce = (source: string) => (error: Error) => {
  const line = `${source}: ${error.message}`;
  if (reported.has(line)) return;
  reported.add(line);
  console.error(`worker ${process.pid}: ${line}`);
};
connection.on("error", reportOnce("redis"));
await reachable(connection, ms("TOLLGATE_CONNECT_MS", 10_000));
const prefix = process.env.TOLLGATE_PREFIX ?? "tollgate:";
const store = sharedStore(connection, { leaseMs: ms("TOLLGATE_LEASE_MS", 30_000), prefix });
const onEvent = publishEvents(connection, prefix);
const loop = ordersAgent({ store, traceFile: join(dir, "trace.log"), onEvent });
const worker = startWorker({
  connection,
  loop,
  store,
  queueName: process.env.TOLLGATE_QUEUE ?? RUNS_QUEUE,
  concurrency: 1,
  lockDuration: ms("TOLLGATE_LOCK_MS", 30_000),
  stalledInterval: ms("TOLLGATE_STALLED_MS", 30_000),
  maxStalledCount: ms("TOLLGATE_MAX_STALLED", 1),
});
worker.on("error", reportOnce("worker"));
worker.on("completed", (job, outcome) => {
  console.log(`job ${job.id} ${job.data.kind} ${job.data.runId}: ${outcome.status}`);
});
worker.on("failed", (job, error) => {
  console.log(`job ${job?.id} failed (attempt ${job?.attemptsMade}): ${error.message}`);
});
await worker.waitUntilReady();
console.log(`worker ${process.pid} ready`);

const stop = async () => {
  await worker.close();
  await connection.quit();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

/** Waits for Redis to answer a PING; if it does not in time, says so once and exits 1. */
async function reachable(redis: Redis, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${waitMs} ms`)), waitMs);
  });
  try {
    await Promise.race([redis.ping(), late]);
  } catch (error) {
    const last = [...reported].at(-1)?.replace(/^redis: /, "");
    const why = last ?? (error instanceof Error ? error.message : String(error));
    console.error(`cannot reach Redis at ${shown(redisUrl!)} (TOLLGATE_REDIS_URL): ${why}`);
    redis.disconnect();
    process.exit(1);
  } finally {
    clearTimeout(timer);
  }
}

/** A Redis URL as it may be printed: without its password. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "(a URL that does not parse)";
  }
}
