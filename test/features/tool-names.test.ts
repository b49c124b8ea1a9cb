import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AgentLoop, DuplicateToolError, type Tool, tool, toolset, withMaxRetries } from "tollgate";
import { McpToolNameError, type McpToolset, mcpTools } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const each of open.reverse()) await each.close().catch(() => {});
});

/**
 * A real SDK server in this process, connected over the SDK's in-memory transport. Its `grow`
 * tool registers the tools named in `later` (the SDK then sends `list_changed`).
 */
async function server(name: string, first: string[], later: string[] = []) {
  const mcp = new McpServer({ name, version: "1.0.0" });
  const served: string[] = [];
  const register = (tool: string) =>
    mcp.registerTool(tool, { inputSchema: {} }, async () => {
      served.push(tool);
      return { content: [{ type: "text", text: `${name}:${tool}` }] };
    });
  for (const tool of first) register(tool);
  mcp.registerTool("grow", { inputSchema: {} }, async () => {
    for (const tool of later) register(tool);
    return { content: [{ type: "text", text: "grown" }] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  open.push(mcp);
  return { client, served };
}

async function opened(client: Client, options?: Parameters<typeof mcpTools>[1]) {
  const tools = await mcpTools(client, options);
  open.push(tools);
  return tools;
}

/** A local tool that counts its runs. */
function local(name: string, sequential = false) {
  const runs: unknown[] = [];
  const made = tool({
    name,
    sequential,
    input: z.object({ q: z.string().optional() }),
    execute: (args) => {
      runs.push(args);
      return `local:${name}`;
    },
  });
  return { tool: made, runs };
}

/** Waits until the toolset has refreshed to hold `name`. */
async function listed(tools: McpToolset, name: string) {
  for (let i = 0; i < 100 && !tools.current().find(name); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("a name is unique in a loop at every moment", () => {
  it("a server that starts listing a local tool's name after list_changed: the next step does not start, McpToolNameError names both", async () => {
    const { client, served } = await server("searcher", ["lookup"], ["search"]);
    const fs = await opened(client);
    const search = local("search");
    const provider = scriptedProvider([
      // In the step the server changes its list, the step's tools are the ones it started with.
      { toolCalls: [{ name: "grow", args: {} }] },
      { toolCalls: [{ name: "search", args: { q: "a" } }] },
      { toolCalls: [{ name: "search", args: { q: "b" } }] },
      { text: "never" },
    ]);
    const loop = new AgentLoop({
      provider,
      // A wrapped MCP tool is still the server's own (same execute), not a clash.
      tools: [...fs.without("grow"), withMaxRetries(fs.get("grow"), 2), search.tool],
      policy: { prepareStep: fs.prepareStep },
    });
    const first = loop.run("go");
    const error = await first.catch((e: unknown) => e);
    expect(provider.requests.length).toBe(1);
    expect(search.runs).toEqual([]);
    expect(served).toEqual([]);
    // The run rejects with the clash itself (not a PolicyError around it).
    expect(error).toBeInstanceOf(McpToolNameError);
    const clash = error as McpToolNameError;
    expect(clash).toBeInstanceOf(DuplicateToolError);
    expect(clash.toolName).toBe("search");
    expect(clash.message).toMatch(/MCP server "searcher"/);
    expect(clash.message).toMatch(/local tool "search"/);
    expect(clash.message).toMatch(/prefix|exclude/);
  });

  it("calls of a step the server changed its list in still reach the tools the step started with", async () => {
    const { client, served } = await server("searcher", [], ["search"]);
    const fs = await opened(client);
    const search = local("search", true);
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "grow", args: {} },
          { name: "search", args: { q: "same step" } },
        ],
      },
      { text: "never" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [...fs, search.tool],
      policy: { prepareStep: fs.prepareStep },
    });
    const error = await loop.run("go").catch((e: unknown) => e);
    await listed(fs, "search");
    expect(search.runs).toEqual([{ q: "same step" }]);
    expect(served).toEqual([]);
    expect(error).toBeInstanceOf(McpToolNameError);
  });

  it("a second server that starts listing the first server's name: McpToolNameError names both servers", async () => {
    const one = await server("alpha", ["fetch"]);
    const two = await server("beta", [], ["fetch"]);
    const a = await opened(one.client, { exclude: ["grow"] });
    const b = await opened(two.client);
    const provider = scriptedProvider([
      { toolCalls: [{ name: "grow", args: {} }] },
      { toolCalls: [{ name: "fetch", args: {} }] },
      { text: "never" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [...a, ...b],
      policy: {
        prepareStep: async (args) => {
          const afterA = toolset(await a.prepareStep(args));
          return b.prepareStep({ tools: afterA });
        },
      },
    });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(provider.requests.length).toBe(1);
    expect(one.served).toEqual([]);
    expect(two.served).toEqual([]);
    expect(error).toBeInstanceOf(McpToolNameError);
    const clash = error as Error;
    expect(clash?.message).toMatch(/MCP server "beta"/);
    expect(clash?.message).toMatch(/MCP server "alpha"'s tool "fetch"/);
  });

  it("prepareStep showing two tools of one name: DuplicateToolError, the model is not called", async () => {
    const one = local("pick");
    const other = local("pick");
    const provider = scriptedProvider([{ text: "never" }]);
    const loop = new AgentLoop({
      provider,
      tools: [one.tool],
      policy: { prepareStep: () => [one.tool, other.tool] },
    });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateToolError);
    expect((error as DuplicateToolError).toolName).toBe("pick");
    expect(String(error)).toMatch(/step 0/);
    expect(String(error)).toMatch(/the loop's tool "pick" and another tool/);
    expect(provider.requests.length).toBe(0);
    const byName = new AgentLoop({
      provider,
      tools: [one.tool],
      policy: { prepareStep: () => ({ tools: ["pick", "pick"] }) },
    });
    await expect(byName.run("go")).rejects.toThrow(DuplicateToolError);
    expect(provider.requests.length).toBe(0);
  });

  it("every name clash is a DuplicateToolError, whatever its source: loop construction, one server's listing, prepareStep", async () => {
    const { client } = await server("dup", ["a.b", "a_b", "echo"]);
    const mapped = await mcpTools(client).catch((e: unknown) => e);
    expect(mapped).toBeInstanceOf(McpToolNameError);
    expect(mapped).toBeInstanceOf(DuplicateToolError);
    expect((mapped as McpToolNameError).toolName).toBe("a_b");
    const fs = await opened(client, { exclude: ["a.b"] });
    const echo = local("echo");
    // At construction: an MCP tool and a local tool of one name, or two servers' tools.
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), tools: [...fs, echo.tool] }),
    ).toThrow(DuplicateToolError);
    expect(() => toolset<any>([...fs, ...fs])).toThrow(DuplicateToolError);
    const twice = new AgentLoop({
      provider: scriptedProvider([]),
      tools: fs,
      policy: { prepareStep: ({ tools }) => [...tools, ...tools] as Tool[] },
    });
    await expect(twice.run("go")).rejects.toThrow(DuplicateToolError);
  });
});
