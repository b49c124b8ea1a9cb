/**
 * The durable-backend conformance suite (test/support/durable-conformance.ts) on DBOS, with
 * real worker processes (test/dbos/worker.ts) on a real PostgreSQL, and SIGKILL.
 *
 * Who runs a run: DBOS runs a workflow in the process that starts it, and recovers a killed
 * process's runs only when a process of the same executor id launches again (see
 * /tmp/dbos-spike/REPORT.md §7). So the test process never starts a run: `start` is a request
 * over the IPC channel to a live worker (round-robin; another worker if that one dies before
 * answering), which calls `agent.start` itself. A DBOS queue the workers listen to would do too,
 * but `dbosAgent` has no way to enqueue a run (`start` takes no queue), and enqueuing its
 * workflow by name from a `DBOSClient` would lean on the workflow's private name and arguments.
 * The test process still launches DBOS, as a client only (its own executor id, and an
 * application version no worker has, so DBOS never hands it a recovered run to run), to use
 * the agent's public `waiting`, `decide` and `result`, and to read the refusals the agent
 * publishes (`tollgate.waiting.refused`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { type DbosAgent, dbosAgent } from "tollgate/dbos";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  CONFORMANCE_AGENT,
  conformanceAgent,
  type DurableBackend,
  type DurableWorker,
  durableConformance,
  type Query,
} from "../support/durable-conformance.js";
import { serviceUrl } from "../support/services.js";

const url = serviceUrl("postgres", "test/dbos/durable-conformance.test.ts");
const root = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = join(root, "test", "dbos", "worker.ts");
const APP = "tollgate-conformance";
const silent = { info() {}, debug() {}, warn() {}, error() {} };

let pool: pg.Pool;
let systemUrl: string;
let agent: DbosAgent;
const query: Query = async (sql, params) => (await pool.query(sql, params)).rows;

/** A worker process and its requests waiting for an answer. */
interface DbosWorker extends DurableWorker {
  request(runId: string, input: string): Promise<void>;
  alive(): boolean;
}

const workers: DbosWorker[] = [];
let turn = 0;

function startWorker(executorId: string): Promise<DurableWorker> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", WORKER], {
    cwd: root,
    env: {
      ...process.env,
      TOLLGATE_DBOS_SYSTEM_URL: systemUrl,
      TOLLGATE_DBOS_APP: APP,
      TOLLGATE_DBOS_EXECUTOR_ID: executorId,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let ids = 0;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      for (const { reject } of waiting.values()) reject(new Error(`worker ${executorId} exited`));
      waiting.clear();
      resolve();
    }),
  );
  child.on("message", (answer: { id: number; ok?: true; error?: string }) => {
    const request = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.ok) request?.resolve();
    else request?.reject(new Error(`worker ${executorId}: ${answer.error}`));
  });
  const worker: DbosWorker = {
    executorId,
    pid: child.pid!,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    exited,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null && child.connected,
    request: (runId, input) =>
      new Promise((resolve, reject) => {
        const id = ids++;
        waiting.set(id, { resolve, reject });
        child.send({ id, start: { runId, input } }, (error) => {
          if (!error) return;
          waiting.delete(id);
          reject(error);
        });
      }),
  };
  return new Promise((resolve, reject) => {
    let printed = "";
    const late = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`worker ${executorId} was not ready within 30 s:\n${output}`));
    }, 30_000);
    const ready = (chunk: Buffer) => {
      printed += chunk.toString();
      if (!/^ready /m.test(printed)) return;
      clearTimeout(late);
      child.stdout!.off("data", ready);
      workers.push(worker);
      resolve(worker);
    };
    child.stdout!.on("data", ready);
    void exited.then(() => {
      clearTimeout(late);
      reject(new Error(`worker ${executorId} exited before it was ready:\n${output}`));
    });
  });
}

const backend: DurableBackend = {
  name: "dbos",
  startWorker,
  query,
  client: {
    /** On the next live worker; on another when that one dies before answering. */
    async start(runId, input) {
      for (let tries = 0; ; tries++) {
        const live = workers.filter((worker) => worker.alive());
        if (live.length === 0) throw new Error(`no live worker to start run ${runId} on`);
        const worker = live[turn++ % live.length]!;
        try {
          return await worker.request(runId, input);
        } catch (error) {
          if (worker.alive() || tries >= 3) throw error;
        }
      }
    },
    waiting: (runId, options) => agent.waiting(runId, options),
    decide: (runId, pause, decisions) => agent.decide(runId, pause, decisions),
    result: (runId) => agent.result(runId),
  },
  async lastRefusal(runId) {
    const refused = await DBOS.getEvent<{ reason: string }>(runId, "tollgate.waiting.refused", 0);
    return refused?.reason;
  },
};

beforeAll(async () => {
  if (!url) return;
  pool = new pg.Pool({ connectionString: url, max: 10 });
  const system = new URL(url);
  system.pathname = `/tollgate_dbos_conformance_${process.pid}`;
  systemUrl = system.toString();
  agent = dbosAgent({ name: CONFORMANCE_AGENT, loop: conformanceAgent(query) });
  DBOS.setConfig({
    name: APP,
    systemDatabaseUrl: systemUrl,
    executorID: "conformance-client",
    applicationVersion: "tollgate-conformance-client",
    systemDatabasePoolSize: 20,
    logger: silent,
  });
  // Launched before any worker: the first launch creates the system database.
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  if (!url) return;
  for (const worker of workers) worker.kill("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await DBOS.shutdown();
  await pool.end();
}, 30_000);

describe.skipIf(!url)("durable conformance: DBOS", () => {
  for (const check of durableConformance(backend)) it(check.name, check.run, check.timeoutMs);
});
