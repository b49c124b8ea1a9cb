/**
 * Usage limits: caps per run on model calls, tool executions and tokens. A limit stops the
 * model call or tool execution that would go past it; the run ends with status
 * "limit_reached" and `result.limit`. Calls it stopped get a "not run" result, so every call
 * still has exactly one. The state carries the limits and what was used, so a paused run
 * keeps counting when it is resumed, in any process.
 *
 *   npx tsx examples/limits.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const search = tool({
  name: "search",
  description: "Search the web",
  input: z.object({ query: z.string() }),
  execute: ({ query }) => `3 results for "${query}"`,
});
const publish = tool({
  name: "publish",
  description: "Publish a post",
  input: z.object({ title: z.string() }),
  needsApproval: true,
  execute: ({ title }) => `published "${title}"`,
});

const searches = (...queries: string[]) => ({
  toolCalls: queries.map((query) => ({ name: "search", args: { query } })),
  usage: { inputTokens: 900, outputTokens: 100 },
});

export async function main(): Promise<{
  capped: RunResult;
  tokens: RunResult;
  resumed: RunResult;
}> {
  // A model that keeps searching, three searches a step.
  const provider = scriptedProvider([
    searches("tollgate", "agent loops", "usage limits"),
    searches("pydantic-ai", "openai agents", "vercel ai"),
    searches("agent limits", "token budgets", "tool budgets"),
  ]);
  const loop = new AgentLoop({
    provider,
    tools: [search, publish],
    limits: { toolCalls: 4, totalTokens: 10_000 },
  });
  const capped = await loop.run("Research agent loops");
  if (capped.status === "limit_reached") {
    const { name, value, used } = capped.limit;
    console.log(`limit_reached: ${name} (limit ${value}, used ${used})`);
  }
  for (const call of capped.steps[1]!.calls) {
    console.log(`  ${JSON.stringify(call.args)} → ${call.result?.output}`);
  }

  // A run's own limits go over the loop's, key by key: here totalTokens, and toolCalls stays 4.
  const tokens = await loop.run("Research again", { limits: { totalTokens: 1_000 } });
  console.log(`${tokens.status}: ${JSON.stringify(tokens.limit)}`);

  // Pause and resume keep counting: the state holds the limits and what was used.
  const paused = await new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ name: "search", args: { query: "news" } }] },
      { toolCalls: [{ name: "publish", args: { title: "Agent loops" } }] },
    ]),
    tools: [search, publish],
    limits: { toolCalls: 2 },
    trustState: true,
  }).run("Write a post");
  if (paused.status !== "needs_approval") throw new Error(`expected a pause, got ${paused.status}`);
  const saved = JSON.stringify(paused.state); // e.g. in a database, until someone approves
  console.log(`paused: ${paused.state.callCounts?.toolCalls} of 2 tool calls used`);
  // Another process, another loop (without limits of its own): the run keeps its toolCalls 2.
  const resumed = await new AgentLoop({
    provider: scriptedProvider([searches("more", "and more")]),
    tools: [search, publish],
    trustState: true,
  }).resume(JSON.parse(saved), { [paused.pending[0]!.toolCallId]: { approve: true } });
  console.log(`resumed: ${resumed.status}, ${JSON.stringify(resumed.limit)}`);
  return { capped, tokens, resumed };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
