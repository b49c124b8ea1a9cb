import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { mcpTools } from "tollgate/mcp";
import { describe, expect, it } from "vitest";
import { hintedServer } from "../support/mcp-hinted-server.js";

describe("include and exclude are checked against the server's list", () => {
  it("an excluded name the server does not list is a TypeError, as is a name in both", async () => {
    const { server } = await hintedServer();
    const connect = async () => {
      const [a, b] = InMemoryTransport.createLinkedPair();
      const copy = new McpServer({ name: "copy", version: "1" });
      copy.registerTool("wipe", { inputSchema: {} }, async () => ({ content: [] }));
      await copy.connect(a);
      const client = new Client({ name: "t", version: "1" });
      await client.connect(b);
      return client;
    };
    await expect(mcpTools(await connect(), { exclude: ["wpie"] })).rejects.toThrow(
      /exclude names "wpie", which the server does not list/,
    );
    await expect(
      mcpTools(await connect(), { include: ["wipe"], exclude: ["wipe"] }),
    ).rejects.toThrow(/"wipe" is in both include and exclude/);
    await server.close();
  });
});

describe("option and source checks", () => {
  it("each key of a source or of the options is a TypeError before anything starts", async () => {
    const command = process.execPath;
    const cases: [Parameters<typeof mcpTools>, RegExp][] = [
      [[{ command }, { timeoutMs: "5000" as never }], /got the string "5000"/],
      [[{ command, stderr: "nope" as never }], /stderr must be "inherit", "ignore"/],
      [[{ command: "" }], /command must be a non-empty string/],
      [[{ command, args: "x" as never }], /args must be an array of strings/],
      [[{ command, env: { A: 1 } as never }], /env\.A must be a string/],
      [[{ command, env: [] as never }], /env must be an object of strings/],
      [[{ command, cwd: 3 as never }], /cwd must be a string/],
      [[{ url: "ftp://127.0.0.1/mcp" }], /url must be http: or https:/],
      [[{ url: 5 as never }], /url must be a string or a URL/],
      [[{ url: "http://127.0.0.1/mcp", headers: { a: 1 } as never }], /headers\.a must be/],
    ];
    for (const [args, message] of cases) {
      await expect(mcpTools(...args)).rejects.toThrow(TypeError);
      await expect(mcpTools(...args)).rejects.toThrow(message);
    }
  });
});
