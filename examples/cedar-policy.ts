/**
 * A Cedar policy set as the loop's policy (tollgate/cedar): the run's user is the principal,
 * the tool is the action, the args and the tool's MCP hints are the context. A forbid denies,
 * a permit allows, and a permit annotated `@ask` pauses the run for approval.
 *
 *   npm install @cedar-policy/cedar-wasm
 *   npx tsx examples/cedar-policy.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { cedarPolicy } from "tollgate/cedar";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

interface Deps {
  user: string;
}

// What a security team reviews: plain Cedar, each policy named by its @id.
const policy = cedarPolicy<Deps>({
  policies: `
    @id("staff-refunds")
    permit(principal in Group::"support", action == Action::"refund", resource)
    when { context.args.amount <= 100 };

    @id("big-refunds-ask")
    @ask
    permit(principal in Group::"support", action == Action::"refund", resource)
    when { context.args.amount > 100 };

    @id("read-only-tools")
    permit(principal, action, resource)
    when { context.annotations has readOnlyHint && context.annotations.readOnlyHint };

    @id("no-deletes")
    forbid(principal, action == Action::"delete_account", resource);
  `,
  entities: [
    { uid: { type: "User", id: "ana" }, attrs: {}, parents: [{ type: "Group", id: "support" }] },
    { uid: { type: "Group", id: "support" }, attrs: {}, parents: [] },
  ],
  // The run's user, from deps: a run without one is denied.
  principal: (deps) => ({ type: "User", id: deps.user }),
});

const refund = tool({
  name: "refund",
  description: "Refund an order",
  input: z.object({ order: z.string(), amount: z.number().int() }),
  execute: ({ order, amount }) => `refunded ${amount} on ${order}`,
});
const lookUp = tool({
  name: "look_up",
  description: "Look an order up",
  input: z.object({ order: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ order }) => `${order}: shipped`,
});
const deleteAccount = tool({
  name: "delete_account",
  description: "Delete a customer's account",
  input: z.object({ customer: z.string() }),
  execute: () => "deleted",
});

export async function main(): Promise<RunResult> {
  const loop = new AgentLoop<Deps>({
    provider: scriptedProvider([
      {
        toolCalls: [
          { name: "look_up", args: { order: "A1" } },
          { name: "refund", args: { order: "A1", amount: 40 } },
          { name: "delete_account", args: { customer: "c9" } },
        ],
      },
      { toolCalls: [{ name: "refund", args: { order: "B2", amount: 900 } }] },
      { text: "Done." },
    ]),
    tools: [lookUp, refund, deleteAccount],
    policy,
    deps: { user: "ana" },
  });
  const result = await loop.run("Sort out orders A1 and B2.");
  for (const step of result.steps) {
    for (const call of step.calls)
      console.log(`${call.toolName}: ${call.verdict} (${call.reason})`);
  }
  // The @ask permit paused the big refund for a human:
  console.log(`${result.status}: ${result.pending?.[0]?.reason}`);

  // explain(): Cedar's answer and the policies that made it, without running anything.
  const why = policy.explain(
    { name: "refund", args: { order: "B2", amount: 900 } },
    { user: "bob" },
  );
  console.log(`bob refunds 900: ${why.decision} (${why.reason})`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
