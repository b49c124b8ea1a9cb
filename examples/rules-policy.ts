/**
 * Rules as data: a rules file (examples/rules.json, checked by rules.schema.json in an editor)
 * becomes the loop's policy. The strictest matching rule wins; `explain` names the rule that
 * decided, for a review or a test.
 *
 *   npx tsx examples/rules-policy.ts
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { rulesPolicy } from "tollgate/rules";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const refunded: number[] = [];
const readFile = tool({
  name: "read_file",
  description: "Read a file of the project",
  input: z.object({ path: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ path }) => `contents of ${path}`,
});
const refund = tool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ orderId: z.string(), amountEur: z.number() }),
  execute: ({ orderId, amountEur }) => {
    refunded.push(amountEur);
    return `refunded ${amountEur} EUR on ${orderId}`;
  },
});

// The rules file is data: a security team reviews and diffs it, not this code.
const rules = JSON.parse(readFileSync(new URL("./rules.json", import.meta.url), "utf8"));
const policy = rulesPolicy(rules);

// Why a call gets its decision, without running anything.
console.log(policy.explain({ name: "read_file", args: { path: "app/.env.local" } }));
console.log(policy.explain({ name: "refund", args: { orderId: "A1", amountEur: 250 } }));

export async function main(): Promise<RunResult> {
  refunded.length = 0;
  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "read_file", args: { path: "README.md" } }, // allowed: "reads"
        { name: "read_file", args: { path: "config/.env" } }, // denied: "no-secrets"
        { name: "refund", args: { orderId: "A1", amountEur: 40 } }, // allowed: "refunds"
        { name: "refund", args: { orderId: "A2", amountEur: 250 } }, // asks: "big-refunds"
      ],
    },
    { text: "Done." },
  ]);
  const loop = new AgentLoop({ provider, tools: [readFile, refund], policy });
  const result = await loop.run("Check the config and refund A1 and A2");

  for (const call of result.steps[0]!.calls) {
    const reason = call.reason ? ` (${call.reason})` : "";
    console.log(`${call.toolName}: ${call.verdict}${reason}`);
  }
  console.log(`status: ${result.status}, pending: ${result.pending?.map((p) => p.toolName)}`);
  console.log(`refunded: ${refunded.join(", ")}`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
