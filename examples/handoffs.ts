/**
 * Handoffs: a triage agent hands a refund request over to a billing agent, which takes the run
 * over with the transcript and its own tools, instructions and gate. Billing's policy asks a
 * human before a refund: the run pauses on the billing agent, its state is plain JSON, and a
 * fresh set of loops (as another process would build) resumes it with the human's approval.
 * The refund runs once. Runs offline on scripted models.
 *
 *   npx tsx examples/handoffs.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, handoff, memoryRunStore, removeToolCalls, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const refunds: string[] = [];
/** The runs, shared by every process's loops (across processes: tollgate/redis or tollgate/postgres). */
const store = memoryRunStore();

/** What each agent's stand-in model answers in this process. */
interface Scripts {
  triage: ScriptedTurn[];
  billing: ScriptedTurn[];
}

/** The agents, built the same way in every process. */
function agents(scripts: Scripts) {
  const refund = tool({
    name: "refund",
    description: "Refund a charge of an order",
    input: z.object({ order: z.string(), amountEur: z.number().positive() }),
    execute: ({ order, amountEur }) => {
      refunds.push(`${order} ${amountEur} EUR`);
      return { refunded: order, amountEur };
    },
  });
  const billingModel = scriptedProvider(scripts.billing);
  const billing = new AgentLoop({
    name: "billing",
    instructions: "You handle refunds and invoices.",
    provider: billingModel,
    tools: [refund],
    // Billing's own gate: every refund waits for a human.
    policy: {
      decideToolCall: ({ call }) =>
        call.name === "refund"
          ? { decision: "NEEDS_APPROVAL", reason: "refunds need a human" }
          : undefined,
    },
  });

  const lookupOrder = tool({
    name: "lookup_order",
    description: "Look an order up",
    input: z.object({ order: z.string() }),
    execute: ({ order }) => ({ order, charges: [80, 80] }),
  });
  const triage = new AgentLoop({
    name: "triage",
    instructions: "You find out what the customer needs and hand them to the agent for it.",
    provider: scriptedProvider(scripts.triage),
    tools: [lookupOrder],
    // The run's, whichever agent holds it: a resume claims the state, once.
    store,
    // The model sees a tool transfer_to_billing. Billing gets the transcript without triage's
    // tool calls and their results: it reads the customer and triage's note.
    handoffs: [
      handoff(billing, { description: "Refunds and invoices", inputFilter: removeToolCalls }),
    ],
  });
  return { triage, billingModel };
}

export async function main(): Promise<{ paused: RunResult; done: RunResult; again: string }> {
  refunds.length = 0;
  // Process 1: triage looks the order up and hands over; billing asks for the refund.
  const first = agents({
    triage: [
      { toolCalls: [{ name: "lookup_order", args: { order: "A-17" } }] },
      {
        text: "Order A-17 was charged twice, 80 EUR each; billing will refund one charge.",
        toolCalls: [{ name: "transfer_to_billing", args: {} }],
      },
    ],
    billing: [{ toolCalls: [{ name: "refund", args: { order: "A-17", amountEur: 80 } }] }],
  });
  first.triage.on("handoff", (event) => {
    console.log(`handoff at step ${event.step}: ${event.from} → ${event.to}`);
  });
  const paused = await first.triage.run("I was charged twice for order A-17. Refund one, please.", {
    runId: "refund-A-17",
  });
  const [call] = paused.pending ?? [];
  if (!call) throw new Error("expected a pending call");
  console.log(`paused on ${paused.agent}: ${call.toolName} ${JSON.stringify(call.args)} waits`);
  const read = first.billingModel.requests[0]?.messages.map((message) => message.role);
  console.log(`billing's model read: ${read?.join(", ")}`);

  // Process 2: the state is JSON, and says which agent holds the run. Fresh loops resume it
  // with the human's approval; the triage loop reaches billing, so billing goes on.
  const saved = JSON.stringify(paused.state);
  const later = agents({ triage: [], billing: [{ text: "Refunded 80 EUR for order A-17." }] });
  const decisions = { [call.toolCallId]: { approve: true as const, digest: call.digest } };
  const done = await later.triage.resume(JSON.parse(saved), decisions);
  console.log(`${done.status} on ${done.agent}: ${done.text}`);
  console.log(`steps by: ${done.steps.map((step) => step.agent).join(", ")}`);

  // A second resume of the same state (a retried request) runs nothing: the store claimed it.
  const again = await later.triage.resume(JSON.parse(saved), decisions).then(
    (result) => `ran again: ${result.status}`,
    (error: Error) => error.message,
  );
  console.log(`resumed again: ${again}`);
  console.log(`refunds made: ${refunds.length} (${refunds.join(", ")})`);
  return { paused, done, again };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
