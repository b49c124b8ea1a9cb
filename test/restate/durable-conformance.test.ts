/**
 * The durable-backend conformance suite (test/support/durable-conformance.ts) on Restate: a real
 * restate-server, SDK endpoint processes as the workers (test/restate/conformance-worker.ts), a
 * real PostgreSQL for the suite's tables, and SIGKILL.
 *
 * Who runs a run: Restate sends each invocation to the deployment registered for the agent's
 * object, so the test process is a client only (`restateAgent(…).client(ingress)`). One
 * deployment serves every worker: its URL is a loopback balancer (test/support/loopback-
 * balancer.ts) giving each connection to the next worker's port. restate-server multiplexes
 * invocations over its HTTP/2 connections, so it runs here with one invocation per connection
 * (see below) and the runs spread. A worker restarted under its executor id listens on that
 * id's port again; Restate retries a killed worker's invocations on whichever worker the
 * balancer gives the new connection.
 *
 * A check of this file's own follows the suite: the load check's runs really ran in each of
 * its workers (the calls table's pid column).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type Refusal, type RestateAgentClient, restateAgent } from "tollgate/restate";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  CALLS_TABLE,
  CONFORMANCE_AGENT,
  conformanceAgent,
  type DurableBackend,
  type DurableWorker,
  durableConformance,
  type Query,
} from "../support/durable-conformance.js";
import { type LoopbackBalancer, startLoopbackBalancer } from "../support/loopback-balancer.js";
import {
  freePort,
  type RestateServer,
  restateServerBinary,
  startRestateServer,
} from "../support/restate-server.js";
import { serviceUrl } from "../support/services.js";

const FILE = "test/restate/durable-conformance.test.ts";
const url = serviceUrl("postgres", FILE);
const binary = url ? restateServerBinary(FILE) : undefined;
const root = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = join(root, "test", "restate", "conformance-worker.ts");
/** The agent's virtual object, for its `refused` shared handler. */
const SERVICE = `tollgate.run.${CONFORMANCE_AGENT}`;

let pool: pg.Pool;
let server: RestateServer;
let balancer: LoopbackBalancer;
let agent: RestateAgentClient;
let registered: Promise<void> | undefined;
const query: Query = async (sql, params) => (await pool.query(sql, params)).rows;
/** Each executor id's port: a restarted worker listens where the one it replaces did. */
const ports = new Map<string, number>();
const children: ChildProcess[] = [];
/** The load check's workers' pids (restarted ones too), by executor id. */
const loadPids = new Map<string, number[]>();

async function startWorker(executorId: string): Promise<DurableWorker> {
  let port = ports.get(executorId);
  if (port === undefined) {
    port = await freePort();
    ports.set(executorId, port);
  }
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
    cwd: root,
    env: {
      ...process.env,
      TOLLGATE_RESTATE_PORT: String(port),
      TOLLGATE_RESTATE_EXECUTOR_ID: executorId,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      balancer.remove(port);
      resolve();
    }),
  );
  const worker: DurableWorker = {
    executorId,
    pid: child.pid!,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    exited,
    output: () => output,
  };
  await new Promise<void>((resolve, reject) => {
    const late = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`worker ${executorId} was not ready within 30 s:\n${output}`));
    }, 30_000);
    const ready = () => {
      if (!/^ready /m.test(output)) return;
      clearTimeout(late);
      child.stdout!.off("data", ready);
      resolve();
    };
    child.stdout!.on("data", ready);
    void exited.then(() => {
      clearTimeout(late);
      reject(new Error(`worker ${executorId} exited before it was ready:\n${output}`));
    });
  });
  if (/-load-\d+$/.test(executorId))
    loadPids.set(executorId, [...(loadPids.get(executorId) ?? []), child.pid!]);
  balancer.add(port);
  // Registered once, when a worker first answers discovery behind the balancer.
  registered ??= server.register(balancer.url);
  await registered;
  return worker;
}

const backend: DurableBackend = {
  name: "restate",
  startWorker,
  query,
  client: {
    start: (runId, input) => agent.start(runId, input),
    waiting: (runId, options) => agent.waiting(runId, options),
    decide: (runId, pause, decisions) => agent.decide(runId, pause, decisions),
    result: (runId) => agent.result(runId),
  },
  /** The agent's `refused` shared handler: the last refused decision message of the run. */
  async lastRefusal(runId) {
    const response = await fetch(
      `${server.ingress}/${SERVICE}/${encodeURIComponent(runId)}/refused`,
      {
        method: "POST",
      },
    );
    if (!response.ok) throw new Error(`refused of ${runId}: ${response.status}`);
    const refusal = (await response.json()) as Refusal | null;
    return refusal?.reason;
  },
};

beforeAll(async () => {
  if (!binary) return;
  pool = new pg.Pool({ connectionString: url, max: 10 });
  balancer = await startLoopbackBalancer();
  // One invocation per connection: restate-server opens another connection only when its open
  // ones are full (128 streams each by default), and then the first runs, the held ones the
  // kill must find in its victim, go to one or two workers. The inactivity timeout stays at its
  // default (1 minute): a short one makes Restate end attempts that wait for a step's ack, and
  // a non-idempotent call whose intent was recorded in such an attempt reads "outcome unknown"
  // with no crash at all (set RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT=100ms in the
  // environment to see the last check here fail).
  server = await startRestateServer(binary, {
    RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT: "1",
  });
  agent = restateAgent({ name: CONFORMANCE_AGENT, loop: conformanceAgent(query) }).client(
    server.ingress,
  );
}, 60_000);

afterAll(async () => {
  if (!binary) return;
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  await server?.stop();
  await balancer?.close();
  await pool?.end();
}, 30_000);

describe.skipIf(!binary)("durable conformance: Restate", () => {
  for (const check of durableConformance(backend)) it(check.name, check.run, check.timeoutMs);

  // After the load check: its workers, found by their executor ids (`…-load-<n>`).
  it("the load check's runs ran in every one of its workers", async () => {
    const pids = [...loadPids.values()].flat();
    if (loadPids.size < 2) throw new Error(`the load check's workers were not seen: ${pids}`);
    const rows = await query(
      `SELECT pid, count(DISTINCT run_id) AS runs FROM ${CALLS_TABLE} WHERE pid = ANY($1) GROUP BY pid`,
      [pids],
    );
    const runsOf = new Map(rows.map((row) => [Number(row.pid), Number(row.runs)]));
    const spread = [...loadPids]
      .map(
        ([id, started]) =>
          `${id}: ${started.map((pid) => `pid ${pid} ${runsOf.get(pid) ?? 0}`).join(", ")}`,
      )
      .join("; ");
    console.log(
      `runs with calls in each load worker: ${spread}; connections per worker port: ${JSON.stringify([...balancer.connections()])}`,
    );
    for (const [id, [pid]] of loadPids) {
      if (!runsOf.get(pid!)) throw new Error(`worker ${id} (pid ${pid}) ran no calls: ${spread}`);
    }
  });
});
