/**
 * tollgate at a glance (the README's example): a tool, a hook that blocks what must never run,
 * a policy that asks a human above a limit, a paused run, and its resume with the human's
 * approval. The model is the scripted fake, so this runs with no key and no network.
 *
 *   npx tsx examples/at-a-glance.ts
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, isCallTo, memoryRunStore, onTool, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** Runs the agent until a payment waits for approval, then approves it; returns what happened. */
export async function main() {
  const paid: string[] = [];
  const pay = tool({
    name: "pay",
    description: "Pay an invoice",
    input: z.object({ invoice: z.string(), amountEur: z.number().positive() }),
    execute: ({ invoice, amountEur }) => {
      paid.push(`${invoice} ${amountEur}`);
      return { paid: invoice };
    },
  });

  // The model asks for two payments, then answers with what happened.
  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "pay", args: { invoice: "INV-7", amountEur: 250 } },
        { name: "pay", args: { invoice: "TEST-1", amountEur: 5 } },
      ],
    },
    { text: "INV-7 is paid; TEST-1 was refused." },
  ]);

  const loop = new AgentLoop({
    provider,
    tools: [pay],
    store: memoryRunStore(),
    // A pre-call hook sees every call first (its args typed from the schema):
    // test invoices never reach the payment system.
    preToolCall: [
      onTool(pay, ({ args }) =>
        args.invoice.startsWith("TEST-") ? { block: "test invoices are not paid" } : undefined,
      ),
    ],
    // The policy decides the rest: a human approves any payment over 100 EUR.
    policy: {
      decideToolCall: ({ call }) =>
        isCallTo(call, pay) && call.args.amountEur > 100 ? "NEEDS_APPROVAL" : "ALLOW",
    },
  });

  const paused = await loop.run("Pay INV-7 and TEST-1");
  console.log(paused.status); // needs_approval
  for (const call of paused.pending ?? []) console.log(call.toolName, call.args); // pay { invoice: 'INV-7', amountEur: 250 }

  // Later, in this process or another one with the same store: the human approves.
  const decisions = Object.fromEntries(
    (paused.pending ?? []).map((call) => [call.toolCallId, { approve: true as const }]),
  );
  const done = await loop.resume(paused.state.runId, decisions);
  console.log(done.status, done.text); // completed INV-7 is paid; TEST-1 was refused.
  console.log(paid); // [ 'INV-7 250' ]
  return { paused, done, paid };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
