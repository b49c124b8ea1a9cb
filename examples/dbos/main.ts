/**
 * A run as a DBOS workflow: it pauses for a refund's approval inside the workflow, a decision
 * (carrying the call's digest) resumes it, and the result comes back. DBOS keeps it all in
 * PostgreSQL: kill this process at the pause and `DBOS.launch()` in a new one recovers the run.
 * Every process that runs or recovers the agent's runs calls `dbosAgent` (which registers its
 * workflow) before `DBOS.launch()`. At the end, a second run goes through a `DBOSClient`
 * (inbox.ts), as a web server that runs no workflow would start and decide it.
 * Run: TOLLGATE_POSTGRES_URL=postgres://… npx tsx examples/dbos/main.ts
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { tool } from "tollgate";
import { dbosAgent } from "tollgate/dbos";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";
import { refundFromInbox } from "./inbox.js";

const lookupOrder = tool({
  name: "lookup_order",
  description: "An order's state",
  input: z.object({ order: z.number() }),
  idempotent: true, // a read: safe to run again after a crash
  execute: ({ order }) => ({ order, state: "delivered", amountEur: 40 }),
});

const refund = tool({
  name: "refund",
  description: "Refunds an order",
  input: z.object({ order: z.number(), amountEur: z.number() }),
  needsApproval: true, // not idempotent: after a crash mid-call, "outcome unknown", never twice
  execute: ({ order, amountEur }) => `refunded ${amountEur} EUR for order ${order}`,
});

/** A scripted model that answers from the transcript (no API key needed). */
const model = functionProvider((request) => {
  const last = request.messages.at(-1);
  if (last?.role === "user") return { toolCalls: [{ name: "lookup_order", args: { order: 7 } }] };
  const result = last?.role === "tool" ? last.results[0] : undefined;
  if (result?.toolName === "lookup_order") {
    return { toolCalls: [{ name: "refund", args: { order: 7, amountEur: 40 } }] };
  }
  return { text: `Done: ${String(result?.output)}` };
});

export const support = dbosAgent({
  name: "support",
  loop: { provider: model, tools: [lookupOrder, refund] },
  approvalTimeoutMs: 60 * 60 * 1000, // a pause waits an hour, then its calls are refused
});

/** DBOS's logger, silenced but for errors. */
function quiet() {
  const none = () => {};
  return {
    info: none,
    debug: none,
    warn: none,
    error: (message: unknown) => console.error(message),
  };
}

const url = process.env.TOLLGATE_POSTGRES_URL;
if (!url)
  throw new Error("set TOLLGATE_POSTGRES_URL to a PostgreSQL server DBOS may create a database on");
const system = new URL(url);
system.pathname = "/tollgate_dbos_example";
DBOS.setConfig({ name: "tollgate-example", systemDatabaseUrl: system.href, logger: quiet() });
await DBOS.launch();

const runId = `refund-${Date.now()}`;
await support.start(runId, "Please refund order 7");

// The inbox's side: what the run waits for, each call with the digest a decision must carry.
const pause = await support.waiting(runId, { timeoutMs: 10_000 });
for (const call of pause?.pending ?? [])
  console.log("waiting:", call.toolName, JSON.stringify(call.args));

const decisions = Object.fromEntries(
  (pause?.pending ?? []).map((call) => [call.key, { approve: true as const, digest: call.digest }]),
);
console.log("decided:", await support.decide(runId, pause!.pause, decisions));
// Sent twice, it runs once: the run says it took these already.
console.log("again:", await support.decide(runId, pause!.pause, decisions));

const result = await support.result(runId);
console.log("result:", result.status, result.text);

// A second run, through a process that runs no workflow (examples/dbos/inbox.ts): the workers
// register the queue its runs go to, and this process is the worker here.
await DBOS.registerQueue("agents");
await refundFromInbox(system.href, `${runId}-inbox`);
await DBOS.shutdown();
