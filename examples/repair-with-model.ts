/**
 * A repair that asks a model: a call whose args fail the schema goes back to the step's model
 * with the messages it was sent and the error, and its new call is the fix, which the gate then
 * judges like the model's own (the AI SDK's re-ask strategy). Runs offline on the scripted
 * model: `npx tsx examples/repair-with-model.ts`.
 */
import { pathToFileURL } from "node:url";
import { AgentLoop, type RepairInfo, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const send = tool({
  name: "send",
  description: "Send a message",
  input: z.object({ to: z.string().email(), body: z.string() }),
  execute: ({ to }) => `sent to ${to}`,
});

/** Re-asks the step's model: what it was sent, its failed call, and why the call failed. */
async function askAgain(info: RepairInfo): Promise<unknown> {
  const { call, error, messages, instructions, tools, provider } = info;
  const response = await provider.generate({
    ...(instructions === undefined ? {} : { system: instructions }),
    tools: [...tools],
    toolChoice: { name: call.name },
    messages: [
      ...messages,
      { role: "assistant", parts: [{ type: "tool-call", ...call, args: call.rawArgs }] },
      {
        role: "tool",
        results: [{ toolCallId: call.id, toolName: call.name, output: error, isError: true }],
      },
    ],
  });
  const again = response.parts.find((part) => part.type === "tool-call");
  return again?.type === "tool-call" ? JSON.parse(again.args) : undefined; // undefined: no fix
}

const provider = scriptedProvider([
  { toolCalls: [{ name: "send", args: { to: "bob", body: "hi" } }] }, // not an email
  { toolCalls: [{ name: "send", args: { to: "bob@example.com", body: "hi" } }] }, // the re-ask
  { text: "Sent." },
]);
const loop = new AgentLoop({
  provider,
  tools: [send],
  instructions: "You send messages for the user.",
  repairToolCall: askAgain,
  preToolCall: [({ args }) => console.log(`hook sees ${JSON.stringify(args)}`)],
});

export async function main(): Promise<string> {
  const result = await loop.run("Tell bob hi");
  const call = result.steps[0]!.calls[0]!;
  const line = `${call.verdict} ${JSON.stringify(call.args)} (repaired from ${call.repairedFrom}); ${result.steps.length} steps`;
  console.log(line);
  return line;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
