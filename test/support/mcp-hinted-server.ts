/**
 * An MCP server in this process whose tools carry hints, and a loop that calls one of them: the
 * fixtures of the tests of mcpAnnotationsPolicy, the source checks and failed connections.
 * Every toolset opened here is closed after the file's tests.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AgentLoop, type LoopPolicy } from "tollgate";
import { type McpToolset, mcpTools } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { afterAll } from "vitest";

const open: McpToolset[] = [];
afterAll(async () => {
  for (const tools of open) await tools.close().catch(() => {});
});
/** `mcpTools(...args)`, closed after the tests of the file that imports this. */
export const opened = async (...args: Parameters<typeof mcpTools>) => {
  const tools = await mcpTools(...args);
  open.push(tools);
  return tools;
};

/** A real SDK server in this process: `wipe` is destructive, `look` read-only and closed-world. */
export async function hintedServer() {
  const server = new McpServer({ name: "hinted", version: "1.0.0" });
  server.registerTool(
    "wipe",
    { inputSchema: {}, annotations: { destructiveHint: true, openWorldHint: false } },
    async () => ({ content: [{ type: "text", text: "wiped" }] }),
  );
  server.registerTool(
    "look",
    { inputSchema: {}, annotations: { readOnlyHint: true, openWorldHint: false } },
    async () => ({ content: [{ type: "text", text: "seen" }] }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  const tools = await opened(client);
  return { server, tools };
}

/** Runs one step that calls `name` (an MCP tool of `tools`) under `policy`, then answers "ok". */
export const run = (tools: McpToolset, policy: LoopPolicy<any>, name = "wipe") =>
  new AgentLoop({
    provider: scriptedProvider([{ toolCalls: [{ name, args: {} }] }, { text: "ok" }]),
    tools,
    policy,
    trustState: true,
  }).run("go");
