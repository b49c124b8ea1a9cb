/**
 * Approvals people can live with: a call repaired before the model is told, the text the model
 * reads for calls that did not run, and a sticky decision that answers every later call of a
 * tool in the run. Runs offline on the scripted model: `npx tsx examples/approvals.ts`.
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** Repairs a call whose args are not JSON, then lets the gate judge it like any other. */
export async function repaired(): Promise<string> {
  const send = tool({
    name: "send",
    input: z.object({ to: z.string().email() }),
    execute: ({ to }) => `sent to ${to}`,
  });
  const provider = scriptedProvider([
    { toolCalls: [{ name: "send", args: "{'to': 'bob@example.com'}" }] }, // not JSON
    { text: "sent" },
  ]);
  const loop = new AgentLoop({
    provider,
    tools: [send],
    repairToolCall: ({ call }) => {
      const fixed = call.rawArgs.replaceAll("'", '"'); // the model's single quotes
      try {
        return JSON.parse(fixed);
      } catch {
        return undefined; // the model reads its own error and tries again
      }
    },
    formatToolError: ({ kind, toolName, message }) =>
      kind === "invalid" ? message : `${toolName}: not allowed (${kind}). Do not retry it.`,
  });
  const result = await loop.run("Mail Bob.");
  const call = result.steps[0]!.calls[0]!;
  return `${call.verdict} ${JSON.stringify(call.args)} (repaired from ${call.repairedFrom})`;
}

/** One approval, remembered for the rest of the run: the second mail does not ask again. */
export async function remembered(): Promise<string[]> {
  const mails: string[] = [];
  const mail = tool({
    name: "mail",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      mails.push(to);
      return `mailed ${to}`;
    },
  });
  const loop = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "mail", args: { to: "ana" }, id: "m1" }] },
      { toolCalls: [{ name: "mail", args: { to: "bob" }, id: "m2" }] },
      { text: "both mailed" },
    ]),
    tools: [mail],
    trustState: true,
  });
  const paused = await loop.run("Mail Ana, then Bob.");
  const id = paused.pending?.[0]?.toolCallId ?? "";

  // Approve this call of `mail`, and every later one in this run that would ask:
  const done = await loop.resume(paused.state, { [id]: { approve: true, remember: "tool" } });
  // (Or refuse it, and every later call of `mail` in this run, without asking again:
  // { [id]: { approve: false, reason: "no mail today", remember: "tool" } }.)

  return [...mails, done.status];
}

export async function main(): Promise<{ repaired: string; remembered: string[] }> {
  const result = { repaired: await repaired(), remembered: await remembered() };
  console.log(`repaired: ${result.repaired}`);
  console.log(`remembered: ${result.remembered.join(", ")}`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
