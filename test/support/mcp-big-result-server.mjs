// A real MCP server over stdio whose `big` tool answers with `bytes` characters of text (over
// the SDK's 10 MiB stdio limit when asked), and whose `echo` tool answers "echo". Started by
// test/mcp/server-limits.test.ts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "big", version: "1.0.0" });
server.registerTool("big", { inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
  content: [{ type: "text", text: "x".repeat(bytes) }],
}));
server.registerTool("echo", { inputSchema: {} }, async () => ({
  content: [{ type: "text", text: "echo" }],
}));
await server.connect(new StdioServerTransport());
