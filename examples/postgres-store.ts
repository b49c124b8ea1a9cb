/**
 * Runs in PostgreSQL: one loop pauses a payment for approval and its state lands in a Postgres
 * table; a second loop, with its own pool (another worker, another host), lists it in the inbox
 * and resumes it with the human's decision. Needs a server:
 *
 *   TOLLGATE_POSTGRES_URL=postgres://user@127.0.0.1:5432/db npx tsx examples/postgres-store.ts
 */
import pg from "pg";
import { AgentLoop, type RunStore, tool } from "tollgate";
import { migratePostgresRunStore, postgresRunStore, prunePostgresRuns } from "tollgate/postgres";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** The same agent on every worker: tools, model and signing key must match to resume. */
function paymentsAgent(store: RunStore) {
  const pay = tool({
    name: "pay",
    input: z.object({ invoice: z.string(), amountEur: z.number().positive() }),
    needsApproval: ({ amountEur }) => amountEur > 100,
    execute: ({ invoice }) => ({ paid: invoice }),
  });
  const provider = functionProvider((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { text: "Invoice INV-9 is paid." }
      : { toolCalls: [{ name: "pay", args: { invoice: "INV-9", amountEur: 400 } }] },
  );
  return new AgentLoop({ provider, tools: [pay], store, signingKey: "from-a-secret-manager" });
}

export async function main(url: string): Promise<void> {
  const table = `example_runs_${process.pid}`; // the example's own table, dropped at the end
  const worker1 = new pg.Pool({ connectionString: url });
  const worker2 = new pg.Pool({ connectionString: url });
  try {
    await migratePostgresRunStore(worker1, { table }); // once, at deploy or at start: idempotent

    // Worker 1 runs until the payment needs approval: the paused run is in Postgres.
    const first = paymentsAgent(postgresRunStore(worker1, { table }));
    const paused = await first.run("Pay invoice INV-9", { runId: "invoice-INV-9" });
    console.log(`worker 1: ${paused.status}`);

    // The inbox reads the paused runs from the table, oldest first.
    const store = postgresRunStore(worker2, { table });
    const { runs } = await store.listPending({ limit: 20 });
    for (const run of runs) {
      for (const call of run.pending) {
        console.log(`inbox: ${run.runId} waits: ${call.toolName} ${JSON.stringify(call.args)}`);
      }
    }

    // A human approved: worker 2, with its own pool, resumes the run from the store.
    const [call] = runs[0]?.pending ?? [];
    if (!call) throw new Error("no paused run in the inbox");
    const second = paymentsAgent(store);
    const done = await second.resume("invoice-INV-9", {
      [call.toolCallId]: { approve: true, digest: call.digest },
    });
    console.log(`worker 2: ${done.status}: ${done.text}`);

    // A cleanup job drops finished runs (paused and running ones are never dropped).
    const dropped = await prunePostgresRuns(worker2, { table, olderThanMs: 0 });
    console.log(`pruned finished runs: ${dropped}`);
  } finally {
    await worker1.query(
      `DROP TABLE IF EXISTS ${table}; DROP SEQUENCE IF EXISTS ${table}_token_seq`,
    );
    await Promise.all([worker1.end(), worker2.end()]);
  }
}

const url = process.env.TOLLGATE_POSTGRES_URL;
if (url) await main(url);
else console.log("skipped: set TOLLGATE_POSTGRES_URL to a PostgreSQL server to run this example");
