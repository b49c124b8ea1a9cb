// A real MCP server over stdio whose `crash` tool ends its process (the connection closes), and
// whose `echo` tool answers. Started by test/mcp/connection-watch.test.ts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "crashing", version: "1.0.0" });
server.registerTool("crash", { inputSchema: {} }, async () => process.exit(1));
server.registerTool("echo", { inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "echo" }],
}));
await server.connect(new StdioServerTransport());
