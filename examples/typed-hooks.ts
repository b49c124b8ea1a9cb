/**
 * Typed hooks and policies: `onTool(tool, hook)` is a hook for one tool with its args typed from
 * the tool's schema; `isCallTo(call, tool)` narrows a policy's call or a pending approval.
 *
 *   npx tsx examples/typed-hooks.ts
 */
import { pathToFileURL } from "node:url";
import type { ApprovalDecisions, RunResult } from "tollgate";
import { AgentLoop, isCallTo, onTool, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const readFile = tool({
  name: "read_file",
  description: "Read a file",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});
const transfer = tool({
  name: "transfer",
  description: "Transfer money",
  input: z.object({ to: z.string(), amount: z.number() }),
  execute: ({ to, amount }) => `sent ${amount} to ${to}`,
});

// Runs for read_file calls only; `args.path` is a string, no cast.
const noSecrets = onTool(readFile, ({ args }) =>
  args.path.startsWith("/etc/") ? { block: "that file is off limits" } : undefined,
);

export async function main(): Promise<RunResult> {
  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "read_file", args: { path: "/etc/shadow" } },
        { name: "transfer", args: { to: "bo", amount: 5000 } },
      ],
    },
    { text: "Done." },
  ]);
  const loop = new AgentLoop({
    provider,
    tools: [readFile, transfer],
    preToolCall: [noSecrets],
    policy: {
      // `call.args` is typed once isCallTo has narrowed the call.
      decideToolCall: ({ call }) =>
        isCallTo(call, transfer) && call.args.amount > 1000 ? "NEEDS_APPROVAL" : undefined,
    },
    trustState: true, // the state never leaves this process
  });

  const paused = await loop.run("Read /etc/shadow and pay Bo 5000.");
  if (paused.status !== "needs_approval") throw new Error(`unexpected ${paused.status}`);
  const decisions: ApprovalDecisions = {};
  for (const call of paused.pending) {
    // A human lowers the amount; the edited args are typed from the transfer tool.
    if (isCallTo(call, transfer)) {
      decisions[call.toolCallId] = { approve: true, args: { ...call.args, amount: 1000 } };
    }
  }
  const result = await loop.resume(paused.state, decisions);

  for (const call of result.steps.flatMap((step) => step.calls)) {
    console.log(`${call.toolName} ${JSON.stringify(call.args)}: ${call.verdict} by ${call.by}`);
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
