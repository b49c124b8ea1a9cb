/**
 * One DBOS worker process of the durable-backend conformance suite
 * (test/dbos/durable-conformance.test.ts starts it as `node --import tsx test/dbos/worker.ts`):
 * it registers the conformance agent with `dbosAgent`, launches DBOS under the executor id it
 * is given, prints `ready`, and then starts the runs its parent asks for over the IPC channel
 * (`{ id, start: { runId, input } }`, answered `{ id, ok: true }` or `{ id, error }`), so the
 * runs are this process's: DBOS runs a workflow in the process that starts it. At launch DBOS
 * recovers the runs a killed process of the same executor id left PENDING. SIGTERM shuts down.
 *
 * Environment: TOLLGATE_POSTGRES_URL (the suite's tables), TOLLGATE_DBOS_SYSTEM_URL (DBOS's
 * system database), TOLLGATE_DBOS_APP (DBOS's application name), TOLLGATE_DBOS_EXECUTOR_ID.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { dbosAgent } from "tollgate/dbos";
import { CONFORMANCE_AGENT, conformanceAgent } from "../support/durable-conformance.js";

/**
 * Every worker's application version: DBOS recovers and dequeues only runs of its own version,
 * and the test process (a client that must not run any) launches under another.
 */
const WORKER_VERSION = "tollgate-conformance-worker";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    console.error(`worker: set ${name}`);
    process.exit(2);
  }
  return value;
};
const url = env("TOLLGATE_POSTGRES_URL");
const systemDatabaseUrl = env("TOLLGATE_DBOS_SYSTEM_URL");
const name = env("TOLLGATE_DBOS_APP");
const executorID = env("TOLLGATE_DBOS_EXECUTOR_ID");

const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on("error", (error) => console.error(`worker ${executorID}: pg: ${error.message}`));
const agent = dbosAgent({
  name: CONFORMANCE_AGENT,
  loop: conformanceAgent(async (sql, params) => (await pool.query(sql, params)).rows),
  approvalTimeoutMs: 120_000,
});

const say =
  (level: string) =>
  (entry: unknown): void => {
    const text = entry instanceof Error ? (entry.stack ?? entry.message) : String(entry);
    console.error(`worker ${executorID} ${level}: ${text}`);
  };
DBOS.setConfig({
  name,
  systemDatabaseUrl,
  executorID,
  applicationVersion: WORKER_VERSION,
  logger: { info() {}, debug() {}, warn: say("warn"), error: say("error") },
});
await DBOS.launch();

type Request = { id: number; start: { runId: string; input: string } };
process.on("message", async ({ id, start }: Request) => {
  try {
    await agent.start(start.runId, start.input);
    process.send?.({ id, ok: true });
  } catch (error) {
    process.send?.({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
process.once("SIGTERM", async () => {
  await DBOS.shutdown();
  await pool.end();
  process.exit(0);
});
console.log(`ready ${executorID} ${process.pid}`);
