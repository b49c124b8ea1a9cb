/**
 * The policy: `decideToolCall` allows or denies each call (with a reason the model reads),
 * `endsRun` ends the run on a tool's result, `prepareStep` chooses the tools each step shows
 * and the ones it lets run, and `executeTool` wraps every execution.
 *
 *   npx tsx examples/policy.ts
 */
import { pathToFileURL } from "node:url";
import type { LoopPolicy, RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const search = tool({
  name: "search",
  description: "Search the docs",
  input: z.object({ query: z.string() }),
  execute: ({ query }) => ["https://docs.example.com/gate", `https://other.example.net/${query}`],
});
const readPage = tool({
  name: "read_page",
  description: "Read a web page",
  input: z.object({ url: z.url() }),
  execute: ({ url }) => `The page at ${url} says: every tool call passes a gate.`,
});
const finalAnswer = tool({
  name: "final_answer",
  description: "Give the final answer",
  input: z.object({ answer: z.string() }),
  execute: ({ answer }) => answer,
});

const audit: string[] = [];

const policy: LoopPolicy = {
  // Who may run: pages only from one site. A DENY's reason goes to the model.
  decideToolCall({ call }) {
    if (call.name !== "read_page") return undefined; // defer: the tool's needsApproval, then ALLOW
    const { hostname } = new URL((call.args as { url: string }).url);
    return hostname === "docs.example.com"
      ? "ALLOW"
      : { decision: "DENY", reason: `${hostname} is not on the allowlist` };
  },
  // When a result ends the run: a final answer that executed successfully.
  endsRun: ({ call }) => call.name === "final_answer",
  // Which tools each step shows and may run. The shown set stays the same (so the provider's
  // prompt cache stays warm); only `callable` narrows: search first, then the rest.
  prepareStep: ({ executed, tools }) => ({
    tools: tools.names(),
    callable: executed.includes("search") ? ["read_page", "final_answer"] : ["search"],
  }),
  // How a tool runs: here, timed and written to an audit log.
  // `args` is the schema's output for `call.args` (defaults and transforms applied): what
  // `execute` takes.
  async executeTool({ tool, args, ctx }) {
    const started = Date.now();
    try {
      return await tool.execute(args, ctx);
    } finally {
      audit.push(`step ${ctx.step}: ${tool.name} ran in ${Date.now() - started} ms`);
    }
  },
};

export async function main(): Promise<RunResult> {
  audit.length = 0;
  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "read_page", args: { url: "https://docs.example.com/gate" } }, // not callable yet
        { name: "search", args: { query: "gate" } },
      ],
    },
    {
      toolCalls: [
        { name: "read_page", args: { url: "https://other.example.net/gate" } }, // denied
        { name: "read_page", args: { url: "https://docs.example.com/gate" } },
      ],
    },
    { toolCalls: [{ name: "final_answer", args: { answer: "Every tool call passes a gate." } }] },
  ]);
  const loop = new AgentLoop({ provider, tools: [search, readPage, finalAnswer], policy });

  const result = await loop.run("What does tollgate do?");

  for (const step of result.steps) {
    console.log(`step ${step.index}: shown [${step.tools}], callable [${step.callable}]`);
    for (const call of step.calls) {
      const reason = call.reason ? ` (${call.reason})` : "";
      console.log(`  ${call.toolName}: ${call.verdict} by ${call.by}${reason}`);
    }
  }
  console.log(audit.join("\n"));
  console.log(`status: ${result.status}, ended by ${result.endedBy?.name}:`, result.endedBy?.args);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
