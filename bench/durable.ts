/**
 * Measurement 12: one approval cycle on each durable backend. A cycle: a run with one tool call
 * that needs approval starts, pauses, is decided, runs the call and finishes (2 model calls).
 * **tollgate's PostgreSQL store**: `loop.run()` pauses (the state in the store), a new loop
 * resumes it by id. **DBOS**: `agent.start()`, `waiting()`, `decide()`, `result()`; the pause
 * waits inside the workflow, each model call and tool execution a DBOS step in the same
 * PostgreSQL. **Restate**: the same four calls through the ingress of a restate-server started
 * for the section; the run is a virtual object served over HTTP/2 from this process, each model
 * call and tool execution a `ctx.run`. Latency is one cycle at a time (p50, p99); throughput is
 * cycles per second with `concurrency` cycles in flight.
 *
 * PostgreSQL comes from `TOLLGATE_POSTGRES_URL` (`node scripts/with-services.mjs npm run bench`),
 * the restate-server binary from bench/node_modules (`npm run bench:install`); without one, its
 * rows say so.
 */
import http2 from "node:http2";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { join } from "node:path";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createEndpointHandler, type LoggerTransport } from "@restatedev/restate-sdk";
import pg from "pg";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { dbosAgent } from "tollgate/dbos";
import { migratePostgresRunStore, postgresRunStore } from "tollgate/postgres";
import { restateAgent } from "tollgate/restate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";
import { freePort, startRestateServer } from "../test/support/restate-server.js";
import { BENCH_DIR, INSTALL_COMMAND } from "./peers.js";

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
  // Run ids of letters, digits and dashes: Restate's result route (attach by idempotency key)
  // answers 404 for a key with a space or a slash in it.
  const slug = backend.replace(/[^\w-]+/g, "-");
  for (let i = 0; i < 3; i++) await cycle(`${slug}-warm-${i}-${Date.now()}`);
  const times: number[] = [];
  for (let i = 0; i < cycles; i++) {
    const started = performance.now();
    await cycle(`${slug}-seq-${i}-${Date.now()}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cycles) await cycle(`${slug}-par-${next++}-${Date.now()}`);
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

const RESTATE = "Restate (tollgate/restate)";

/** The restate-server binary in bench/node_modules, or why there is none. */
function restateBinary(): { binary: string } | { skipped: string } {
  const name = `@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`;
  try {
    return { binary: createRequire(join(BENCH_DIR, "package.json")).resolve(name) };
  } catch {
    return { skipped: `${name} is not installed in bench/node_modules (${INSTALL_COMMAND})` };
  }
}

/**
 * Restate: a restate-server of its own (127.0.0.1, free ports, a temp data dir), the agent's
 * endpoint served over HTTP/2 from this process and registered; the pause waits on an
 * awakeable, decide() resolves it.
 */
async function restateCycles(
  binary: string,
  cycles: number,
  concurrency: number,
): Promise<DurableReading> {
  const server = await startRestateServer(binary);
  const agent = restateAgent({ name: "bench", loop: { provider: model(), tools: [refund] } });
  // The SDK logs each invocation to stdout, where the section child prints its result: errors
  // only, to stderr.
  const logger: LoggerTransport = ({ level }, ...message) => {
    if (`${level}` === "error") console.error(...message);
  };
  const endpoint = http2.createServer(createEndpointHandler({ services: [agent.object], logger }));
  const sessions = new Set<http2.Http2Session>();
  endpoint.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  try {
    const port = await freePort();
    await new Promise<void>((resolve) => endpoint.listen(port, "127.0.0.1", resolve));
    await server.register(`http://127.0.0.1:${port}`);
    const client = agent.client(server.ingress);
    return await measure(
      RESTATE,
      async (runId) => {
        await client.start(runId, "refund order 7");
        const pause = (await client.waiting(runId, { timeoutMs: 30_000 }))!;
        const call = pause.pending[0]!;
        await client.decide(runId, pause.pause, {
          [call.key]: { approve: true, digest: call.digest },
        });
        const done = await client.result(runId);
        if (done.status !== "completed") throw new Error(`Restate cycle ended ${done.status}`);
      },
      cycles,
      concurrency,
    );
  } finally {
    endpoint.close();
    for (const session of sessions) session.close();
    await server.stop();
  }
}

/** Every backend's readings, the store first. */
export async function durableReadings(
  cycles: number,
  concurrency: number,
): Promise<DurableReading[]> {
  const url = process.env.TOLLGATE_POSTGRES_URL;
  const readings: DurableReading[] = [];
  if (url) {
    readings.push(await storeCycles(url, cycles, concurrency));
    readings.push(await dbosCycles(url, cycles, concurrency));
  } else {
    const skipped = "no TOLLGATE_POSTGRES_URL (run under scripts/with-services.mjs)";
    readings.push({ backend: "tollgate PostgreSQL store", skipped });
    readings.push({ backend: "DBOS (tollgate/dbos)", skipped });
  }
  const restate = restateBinary();
  readings.push(
    "binary" in restate
      ? await restateCycles(restate.binary, cycles, concurrency)
      : { backend: RESTATE, skipped: restate.skipped },
  );
  return readings;
}
