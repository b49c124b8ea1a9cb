/**
 * An output validator: the final answer passes its schema, then a check that reads the run's
 * deps (here a customer table) and may send the model back to try again. The scripted model
 * first bills a customer that does not exist; the validator refuses it with a message the model
 * reads, and its second answer is accepted. A validator that throws ends the run: the error
 * it threw is the `PolicyError`'s `cause`.
 *
 *   npx tsx examples/output-validator.ts
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, PolicyError, type Provider } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const Invoice = z.object({ customer: z.string(), total: z.number() });

const deps = {
  db: { customerExists: async (name: string) => ["acme", "initech"].includes(name) },
};

class FraudSuspected extends Error {}

/** A billing agent on the given model, whose answer is an Invoice its validator accepted. */
const billing = (provider: Provider) =>
  new AgentLoop({
    provider,
    deps,
    output: {
      schema: Invoice,
      validate: async (invoice, ctx) => {
        if (invoice.total > 10_000)
          throw new FraudSuspected(`total ${invoice.total} at step ${ctx.step}`);
        if (!(await ctx.deps.db.customerExists(invoice.customer))) {
          return `customer ${invoice.customer} does not exist; use one from lookup_customer`;
        }
        // undefined (or nothing) accepts the invoice
      },
    },
  });

export async function main() {
  const provider = scriptedProvider([
    { toolCalls: [{ name: "final_answer", args: { customer: "globex", total: 120 } }] },
    { toolCalls: [{ name: "final_answer", args: { customer: "acme", total: 120 } }] },
  ]);
  const result = await billing(provider).run("Bill 120 to our usual customer");
  console.log("output:", JSON.stringify(result.output)); // only an accepted answer
  const refused = result.steps[0]!.calls[0]!.result!;
  console.log(`the model read: ${String(refused.output)}`);

  // A throw is a tripwire: the run ends, and the error is the PolicyError's cause.
  const huge = scriptedProvider([
    { toolCalls: [{ name: "final_answer", args: { customer: "acme", total: 99_999 } }] },
  ]);
  try {
    await billing(huge).run("Bill a lot");
  } catch (error) {
    if (error instanceof PolicyError && error.cause instanceof FraudSuspected) {
      console.log(`stopped by ${error.callback}: ${error.cause.message}`);
    } else throw error;
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
