/**
 * The inbox's demo agent: a support agent whose refunds and e-mails wait for a human. Its model
 * is a stand-in (`functionProvider`) that answers from the transcript, so it needs no key and
 * any process can take its next turn. `seedRuns` leaves two runs paused in the store.
 */
import { AgentLoop, type FullRunStore, memoryRunStore, type ToolResult, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { z } from "zod";

/** What the demo's tools did, in order (the test reads it: nothing runs unapproved). */
export const sideEffects: string[] = [];

const refund = tool({
  name: "refund",
  description: "Refund (part of) an order to the customer's card",
  input: z.object({ order: z.string().min(1), amountEur: z.number().positive().max(500) }),
  needsApproval: true,
  execute: ({ order, amountEur }) => {
    sideEffects.push(`refund ${order} ${amountEur}`);
    return { refunded: order, amountEur };
  },
});

const sendEmail = tool({
  name: "send_email",
  description: "Send an e-mail to a customer",
  input: z.object({ to: z.string().email(), subject: z.string(), body: z.string() }),
  needsApproval: true,
  execute: ({ to, subject }) => {
    sideEffects.push(`email ${to} ${subject}`);
    return `sent to ${to}`;
  },
});

/** The demo's tools: the inbox checks edited args against their schemas. */
export const demoTools = [refund, sendEmail];

/** The stand-in model: asks for the tool the prompt names, then answers from its result. */
const provider = functionProvider((request) => {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: answer(last.results[0]!) };
  const prompt = request.messages[0]?.role === "user" ? String(request.messages[0].content) : "";
  return prompt.includes("refund")
    ? { toolCalls: [{ name: "refund", args: { order: "A-1042", amountEur: 120 } }] }
    : {
        toolCalls: [
          {
            name: "send_email",
            args: {
              to: "ana@example.com",
              subject: "Your order is late",
              body: "Sorry, your parcel is a week late. We will refund the shipping.",
            },
          },
        ],
      };
});

function answer(result: ToolResult): string {
  if (result.isError) return `I did not go ahead: ${String(result.output)}`;
  if (result.toolName === "refund") {
    const { refunded, amountEur } = result.output as { refunded: string; amountEur: number };
    return `Refunded ${amountEur} EUR for order ${refunded}.`;
  }
  return `Done: ${String(result.output)}.`;
}

/** The demo agent over `store` (the inbox lists the same store). */
export function demoAgent(store: FullRunStore = memoryRunStore()) {
  return { store, loop: new AgentLoop({ provider, tools: demoTools, store }) };
}

/** Starts the two demo runs; each pauses for approval in the store. */
export async function seedRuns(loop: AgentLoop): Promise<void> {
  await loop.run("Please refund order A-1042: the parcel arrived broken.", {
    runId: "refund-A-1042",
  });
  // The inbox lists the oldest first, ties by run id: a later millisecond keeps the refund first.
  const paused = Date.now();
  while (Date.now() <= paused) await new Promise((resolve) => setTimeout(resolve, 1));
  await loop.run("Tell Ana her order is late.", { runId: "email-ana" });
}
