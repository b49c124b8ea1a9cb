/**
 * The SDK endpoint of test/restate/restate-agent.test.ts, as its own process (so the test can
 * SIGKILL it mid-tool): `restateAgent({ name: "test" })` (and `"hasty"`, whose pauses time out
 * after 300 ms) bound to an HTTP/2 endpoint on 127.0.0.1:TOLLGATE_RESTATE_PORT. Every tool
 * execution and every event is a line appended to files in TOLLGATE_RESTATE_DIR (`trace.log`:
 * `start|end <tool> <arg> <pid>`; `events.log`: `<runId> <seq> <type>`), so executions are
 * counted across processes. `charge` and `lookup` wait while `hold-<tool>` exists there.
 * Prints `ready` once listening.
 */
import { appendFileSync, existsSync } from "node:fs";
import http2 from "node:http2";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createEndpointHandler } from "@restatedev/restate-sdk";
import { type LoopEvent, tool } from "tollgate";
import { restateAgent } from "tollgate/restate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

const port = Number(process.env.TOLLGATE_RESTATE_PORT);
const dir = process.env.TOLLGATE_RESTATE_DIR;
if (!port || !dir) {
  console.error("endpoint: set TOLLGATE_RESTATE_PORT and TOLLGATE_RESTATE_DIR");
  process.exit(2);
}
const trace = (line: string) => appendFileSync(join(dir, "trace.log"), `${line} ${process.pid}\n`);

/** A tool that traces its start and end, and waits in between while its hold file exists. */
async function held(name: string, arg: string): Promise<void> {
  trace(`start ${name} ${arg}`);
  while (existsSync(join(dir!, `hold-${name}`))) await sleep(20);
  trace(`end ${name} ${arg}`);
}

const tools = [
  tool({
    name: "refund",
    description: "Refunds an order",
    input: z.object({ order: z.number() }),
    needsApproval: true,
    execute: ({ order }) => {
      trace(`start refund ${order}`);
      return `refunded ${order}`;
    },
  }),
  tool({
    name: "weather",
    description: "The weather",
    input: z.object({ city: z.string() }),
    idempotent: true,
    execute: ({ city }) => {
      trace(`start weather ${city}`);
      return { city, tempC: 21 };
    },
  }),
  tool({ name: "locate", description: "The page answers", input: z.object({}) }),
  tool({
    name: "charge",
    description: "Charges a card (not idempotent)",
    input: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      await held("charge", String(amount));
      return `charged ${amount}`;
    },
  }),
  tool({
    name: "lookup",
    description: "Looks an order up (idempotent)",
    input: z.object({ order: z.number() }),
    idempotent: true,
    execute: async ({ order }) => {
      await held("lookup", String(order));
      return { order, status: "shipped" };
    },
  }),
];

/** Each run's script, by its first user message; the turn by the run's step (replays agree). */
function script(prompt: string) {
  if (prompt.startsWith("refund")) {
    return [
      {
        text: "Looking.",
        toolCalls: [
          { name: "weather", args: { city: "Oslo" } },
          { name: "refund", args: { order: 7 } },
        ],
      },
      { text: "Done." },
    ];
  }
  if (prompt.startsWith("twice")) {
    return [
      { toolCalls: [{ name: "refund", args: { order: 1 } }] },
      { toolCalls: [{ name: "refund", args: { order: 2 } }] },
      { text: "Both." },
    ];
  }
  if (prompt.startsWith("charge")) {
    return [{ toolCalls: [{ name: "charge", args: { amount: 5 } }] }, { text: "Charged." }];
  }
  if (prompt.startsWith("lookup")) {
    return [{ toolCalls: [{ name: "lookup", args: { order: 9 } }] }, { text: "Shipped." }];
  }
  return [{ toolCalls: [{ name: "locate", args: {} }] }, { text: "Located." }];
}

const loop = {
  provider: functionProvider((request, { step }) => {
    const first = request.messages[0] as { content: string };
    const turn = script(first.content)[step];
    if (!turn) throw new Error(`no turn ${step} for ${first.content}`);
    return turn;
  }),
  tools,
};
const onEvent = (event: LoopEvent, seq: number) =>
  appendFileSync(join(dir, "events.log"), `${event.runId} ${seq} ${event.type}\n`);
const agent = restateAgent({ name: "test", loop, approvalTimeoutMs: 60_000, onEvent });
/** The same agent whose pauses time out after 300 ms. */
const hasty = restateAgent({ name: "hasty", loop, approvalTimeoutMs: 300, onEvent });

http2
  .createServer(createEndpointHandler({ services: [agent.object, hasty.object] }))
  .listen(port, "127.0.0.1", () => console.log(`ready ${process.pid}`));
process.once("SIGTERM", () => process.exit(0));
