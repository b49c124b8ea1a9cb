/**
 * A run as a Restate virtual object: it pauses for a refund's approval on an awakeable, a
 * decision (carrying the call's digest) resumes it, and the result comes back. Restate journals
 * each model call and tool execution: kill this process at the pause, serve the endpoint again,
 * and Restate replays the run there. This file serves the agent's endpoint, registers it with
 * the server's admin API, then drives one run through the ingress, as an API and an inbox would.
 * Run, with a restate-server on its default ports (`npx @restatedev/restate-server`):
 *   npx tsx examples/restate/main.ts
 * Elsewhere: TOLLGATE_RESTATE_INGRESS (default http://127.0.0.1:8080), TOLLGATE_RESTATE_ADMIN
 * (default http://127.0.0.1:9070); TOLLGATE_RESTATE_PORT is the endpoint's port (default 9080).
 */
import http2 from "node:http2";
import { createEndpointHandler, type LoggerTransport } from "@restatedev/restate-sdk";
import { tool } from "tollgate";
import { restateAgent } from "tollgate/restate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

const lookupOrder = tool({
  name: "lookup_order",
  description: "An order's state",
  input: z.object({ order: z.number() }),
  idempotent: true, // a read: safe to run again after a crash
  execute: ({ order }) => ({ order, state: "delivered", amountEur: 40 }),
});

let refunds = 0;
const refund = tool({
  name: "refund",
  description: "Refunds an order",
  input: z.object({ order: z.number(), amountEur: z.number() }),
  needsApproval: true, // not idempotent: after a crash mid-call, "outcome unknown", never twice
  execute: ({ order, amountEur }) => {
    refunds++;
    return `refunded ${amountEur} EUR for order ${order}`;
  },
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

export const support = restateAgent({
  name: "support",
  loop: { provider: model, tools: [lookupOrder, refund] },
  approvalTimeoutMs: 60 * 60 * 1000, // a pause waits an hour, then its calls are refused
});

const ingress = process.env.TOLLGATE_RESTATE_INGRESS ?? "http://127.0.0.1:8080";
const admin = process.env.TOLLGATE_RESTATE_ADMIN ?? "http://127.0.0.1:9070";
const port = Number(process.env.TOLLGATE_RESTATE_PORT ?? 9080);

/** The SDK's log, errors only (it logs every invocation's start and end). */
const logger: LoggerTransport = ({ level }, ...message) => {
  if (`${level}` === "error") console.error(...message);
};
// The endpoint, over HTTP/2 (the outcome-unknown rule needs Restate's bidirectional stream),
// bound to loopback: restate-server calls it there.
const endpoint = http2.createServer(createEndpointHandler({ services: [support.object], logger }));
const sessions = new Set<http2.Http2Session>();
endpoint.on("session", (session) => {
  sessions.add(session);
  session.once("close", () => sessions.delete(session));
});
await new Promise<void>((resolve) => endpoint.listen(port, "127.0.0.1", resolve));

// Tell Restate where the agent's object is served (again on each start: `force` replaces it).
const registered = await fetch(`${admin}/deployments`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ uri: `http://127.0.0.1:${port}`, force: true }),
}).catch((error: unknown) => {
  throw new Error(`no restate-server admin API at ${admin} (TOLLGATE_RESTATE_ADMIN)`, {
    cause: error,
  });
});
if (!registered.ok) throw new Error(`registering: ${registered.status} ${await registered.text()}`);

const client = support.client(ingress);
const runId = `refund-${Date.now()}`;
await client.start(runId, "Please refund order 7");

// The inbox's side: what the run waits for, each call with the digest a decision must carry.
const pause = await client.waiting(runId, { timeoutMs: 10_000 });
for (const call of pause?.pending ?? [])
  console.log("waiting:", call.toolName, JSON.stringify(call.args));

const decisions = Object.fromEntries(
  (pause?.pending ?? []).map((call) => [call.key, { approve: true as const, digest: call.digest }]),
);
console.log("decided:", await client.decide(runId, pause!.pause, decisions));
// Sent twice, it runs once: the run says it took these already.
console.log("again:", await client.decide(runId, pause!.pause, decisions));

const result = await client.result(runId);
console.log("result:", result.status, result.text);
console.log("refunds made:", refunds);
// Stop serving. Restate keeps its HTTP/2 connection open, and close() waits for it: close that too.
endpoint.close();
for (const session of sessions) session.close();
