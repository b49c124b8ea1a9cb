/**
 * One worker of the durable-backend conformance suite on Restate
 * (test/restate/durable-conformance.test.ts starts it as `node --import tsx …`): an SDK endpoint
 * serving `restateAgent({ name: CONFORMANCE_AGENT, loop: conformanceAgent(query) })` over HTTP/2
 * on 127.0.0.1:TOLLGATE_RESTATE_PORT, its tools writing to the suite's tables through a pg Pool
 * on TOLLGATE_POSTGRES_URL. Restate sends it invocations; it starts none. A worker restarted
 * under its executor id (TOLLGATE_RESTATE_EXECUTOR_ID, only printed) listens on the same port.
 * Prints `ready <executor id> <pid>` once listening; SIGTERM stops it.
 */
import http2 from "node:http2";
import { createEndpointHandler } from "@restatedev/restate-sdk";
import pg from "pg";
import { restateAgent } from "tollgate/restate";
import { CONFORMANCE_AGENT, conformanceAgent } from "../support/durable-conformance.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    console.error(`conformance worker: set ${name}`);
    process.exit(2);
  }
  return value;
};
const url = env("TOLLGATE_POSTGRES_URL");
const port = Number(env("TOLLGATE_RESTATE_PORT"));
const executorId = env("TOLLGATE_RESTATE_EXECUTOR_ID");

const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on("error", (error) => console.error(`worker ${executorId}: pg: ${error.message}`));
const agent = restateAgent({
  name: CONFORMANCE_AGENT,
  loop: conformanceAgent(async (sql, params) => (await pool.query(sql, params)).rows),
  approvalTimeoutMs: 120_000,
});

const server = http2.createServer(createEndpointHandler({ services: [agent.object] }));
server.listen(port, "127.0.0.1", () => console.log(`ready ${executorId} ${process.pid}`));
// Its runs are Restate's to retry elsewhere: nothing to drain.
process.once("SIGTERM", () => process.exit(0));
