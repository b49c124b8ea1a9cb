/**
 * Measurement 12: one approval cycle on each durable backend, on the same PostgreSQL. A cycle:
 * a run with one tool call that needs approval starts, pauses, is decided, runs the call and
 * finishes (2 model calls). **tollgate's PostgreSQL store**: `loop.run()` pauses (the state in the
 * store), a new loop resumes it by id. **DBOS**: `agent.start()`, `waiting()`, `decide()`,
 * `result()`; the pause waits inside the workflow, each model call and tool execution a DBOS
 * step in the same PostgreSQL. Latency is one cycle at a time (p50, p99); throughput is cycles
 * per second with `concurrency` cycles in flight.
 *
 * PostgreSQL comes from `TOLLGATE_POSTGRES_URL` (`node scripts/with-services.mjs npm run bench`);
 * without it the section says so.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { dbosAgent } from "tollgate/dbos";
import { migratePostgresRunStore, postgresRunStore } from "tollgate/postgres";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** One backend's readings. */
export interface DurableReading {
  backend: string;
  skipped?: string;
  p50Ms?: number;
  p99Ms?: number;
  cyclesPerSecond?: number;
}

const refund = tool({
  name: "refund",
  description: "Refunds",
  input: z.object({ order: z.number() }),
  needsApproval: true,
  execute: ({ order }) => `refunded ${order}`,
});
/** Calls refund once, then answers with its output. */
const model = () =>
  functionProvider((request) => {
    const last = request.messages.at(-1);
    return last?.role === "tool"
      ? { text: String(last.results[0]!.output) }
      : { toolCalls: [{ name: "refund", args: { order: 7 } }] };
  });

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(
  backend: string,
  cycle: (runId: string) => Promise<void>,
  cycles: number,
  concurrency: number,
): Promise<DurableReading> {
  for (let i = 0; i < 3; i++) await cycle(`${backend}-warm-${i}-${Date.now()}`);
  const times: number[] = [];
  for (let i = 0; i < cycles; i++) {
    const started = performance.now();
    await cycle(`${backend}-seq-${i}-${Date.now()}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cycles) await cycle(`${backend}-par-${next++}-${Date.now()}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    backend,
    p50Ms: quantile(times, 0.5),
    p99Ms: quantile(times, 0.99),
    cyclesPerSecond: cycles / seconds,
  };
}

/** tollgate's own PostgreSQL store: the run pauses into it, a new loop resumes it by id. */
async function storeCycles(
  url: string,
  cycles: number,
  concurrency: number,
): Promise<DurableReading> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  const table = `bench_durable_${process.pid}`;
  await migratePostgresRunStore(pool, { table });
  const store: RunStore = postgresRunStore(pool, { table });
  const loopOf = () => new AgentLoop({ provider: model(), tools: [refund], store });
  try {
    return await measure(
      "tollgate PostgreSQL store",
      async (runId) => {
        const paused = await loopOf().run("refund order 7", { runId });
        const id = paused.pending![0]!.toolCallId;
        const done = await loopOf().resume(runId, { [id]: { approve: true } });
        if (done.status !== "completed") throw new Error(`store cycle ended ${done.status}`);
      },
      cycles,
      concurrency,
    );
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  }
}

/** DBOS: the pause waits inside the workflow; decide() sends the decision. */
async function dbosCycles(
  url: string,
  cycles: number,
  concurrency: number,
): Promise<DurableReading> {
  const agent = dbosAgent({ name: "bench", loop: { provider: model(), tools: [refund] } });
  const system = new URL(url);
  system.pathname = `/tollgate_bench_dbos_${process.pid}`;
  const none = () => {};
  DBOS.setConfig({
    name: "tollgate-bench",
    systemDatabaseUrl: system.href,
    logger: { info: none, debug: none, warn: none, error: none },
  });
  await DBOS.launch();
  try {
    return await measure(
      "DBOS (tollgate/dbos)",
      async (runId) => {
        await agent.start(runId, "refund order 7");
        const pause = (await agent.waiting(runId, { timeoutMs: 30_000 }))!;
        const call = pause.pending[0]!;
        await agent.decide(runId, pause.pause, {
          [call.key]: { approve: true, digest: call.digest },
        });
        const done = await agent.result(runId);
        if (done.status !== "completed") throw new Error(`DBOS cycle ended ${done.status}`);
      },
      cycles,
      concurrency,
    );
  } finally {
    await DBOS.shutdown();
  }
}

/** Every backend's readings, the store first. */
export async function durableReadings(
  cycles: number,
  concurrency: number,
): Promise<DurableReading[]> {
  const url = process.env.TOLLGATE_POSTGRES_URL;
  if (!url) {
    const skipped = "no TOLLGATE_POSTGRES_URL (run under scripts/with-services.mjs)";
    return [
      { backend: "tollgate PostgreSQL store", skipped },
      { backend: "DBOS (tollgate/dbos)", skipped },
    ];
  }
  return [await storeCycles(url, cycles, concurrency), await dbosCycles(url, cycles, concurrency)];
}
