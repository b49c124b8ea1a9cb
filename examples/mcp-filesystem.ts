/**
 * MCP tools behind the gate: an agent over the real filesystem server on a temp folder. Reading
 * runs at once (the server says read_text_file is read-only); writing is destructive by the
 * server's hints, so mcpAnnotationsPolicy pauses it for a human, who approves it.
 *
 *   npx tsx examples/mcp-filesystem.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentLoop, type Provider } from "tollgate";
import { type McpToolset, mcpAnnotationsPolicy, mcpTools, resolvedAnnotations } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";

/**
 * The filesystem server's tools for one folder, over stdio. The server is a devDependency here;
 * `{ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", dir] }` works too.
 */
export function filesystemTools(dir: string): Promise<McpToolset> {
  const server = createRequire(import.meta.url).resolve(
    "@modelcontextprotocol/server-filesystem/dist/index.js",
  );
  return mcpTools(
    { command: process.execPath, args: [server, dir], stderr: "ignore" },
    { prefix: "fs_" },
  );
}

/** An agent over an MCP server's tools: a call to a destructive or open-world tool waits for a human. */
export function agentOver(fs: McpToolset, provider: Provider) {
  return new AgentLoop({
    provider,
    tools: fs,
    // The MCP rule, and your own policy: tools the server adds later are offered from the next step.
    policy: mcpAnnotationsPolicy(
      { destructive: "NEEDS_APPROVAL", openWorld: "NEEDS_APPROVAL" },
      { prepareStep: fs.prepareStep },
    ),
    preToolCall: [
      (call) => {
        // call.annotations are the server's own hints; resolvedAnnotations adds MCP's defaults.
        if (resolvedAnnotations(call).destructiveHint) console.log(`destructive: ${call.name}`);
      },
    ],
    trustState: true, // the paused state is resumed by value, in this process only
  });
}

/**
 * Runs the agent; each call that waits is shown to a human (here: approved) and the run goes on.
 * `trustState: true` lets this process resume its own state by value; across processes, keep the
 * state in a store or sign it (see the guide docs/human-in-the-loop.md).
 */
export async function runApproving(loop: AgentLoop, prompt: string) {
  const paused = await loop.run(prompt);
  if (paused.status !== "needs_approval") return paused;
  const approvals: Record<string, { approve: true }> = {};
  for (const call of paused.pending) {
    console.log(`paused: ${call.toolName} ${JSON.stringify(call.args)} (${call.reason})`);
    approvals[call.toolCallId] = { approve: true };
  }
  return loop.resume(paused.state, approvals);
}

export async function main() {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-mcp-example-"));
  writeFileSync(join(dir, "todo.txt"), "buy milk");
  const fs = await filesystemTools(dir);
  try {
    const loop = agentOver(
      fs,
      scriptedProvider([
        { toolCalls: [{ name: "fs_read_text_file", args: { path: join(dir, "todo.txt") } }] },
        {
          toolCalls: [
            {
              name: "fs_write_file",
              args: { path: join(dir, "todo.txt"), content: "buy oat milk" },
            },
          ],
        },
        { text: "Updated the list." },
      ]),
    );
    const done = await runApproving(loop, "Make it oat milk.");
    console.log(`${done.status}: ${done.text}`);
    console.log(`todo.txt now reads: ${readFileSync(join(dir, "todo.txt"), "utf8")}`);
    return { done };
  } finally {
    await fs.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
