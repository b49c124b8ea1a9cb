import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AgentLoop } from "tollgate";
import { McpConnectionError, type McpToolset, mcpTools } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { hintedServer, opened, run } from "../support/mcp-hinted-server.js";
import { collectUnhandledRejections } from "../support/unhandled.js";

const CRASHING = fileURLToPath(new URL("../support/mcp-crashing-server.mjs", import.meta.url));
const crashingStdio = () => ({
  command: process.execPath,
  args: [CRASHING],
  stderr: "ignore" as const,
});

/** Lets pending microtasks and one macrotask run, so an unhandled rejection is reported. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("failed refreshes and closed connections fail closed, never crash the process", () => {
  const unhandled = collectUnhandledRejections();

  it("a server that says list_changed and then fails tools/list: no unhandled rejection, the next step rejects", async () => {
    const hinted = await hintedServer();
    hinted.server.server.setRequestHandler(
      (await import("@modelcontextprotocol/sdk/types.js")).ListToolsRequestSchema,
      async () => {
        throw new Error("listing is broken");
      },
    );
    hinted.server.sendToolListChanged();
    await expect(hinted.tools.refresh()).rejects.toThrow(/listing is broken/);
    await settle();
    expect(unhandled).toEqual([]);
    const error = await run(hinted.tools, { prepareStep: hinted.tools.prepareStep }).catch(
      (e) => e,
    );
    expect(String(error)).toMatch(/could not be listed again/);
  });

  it("a real stdio server that dies: no unhandled rejection, prepareStep fails closed", async () => {
    const tools = await opened(crashingStdio());
    const loop = (script: Parameters<typeof scriptedProvider>[0]) =>
      new AgentLoop({
        provider: scriptedProvider(script),
        tools,
        policy: { prepareStep: tools.prepareStep },
      });
    const result = await loop([
      { toolCalls: [{ name: "crash", args: {} }] },
      { toolCalls: [{ name: "echo", args: {} }] },
      { text: "never" },
    ])
      .run("go")
      .catch((e: unknown) => e);
    await tools.refresh().catch(() => {});
    await settle();
    expect(unhandled).toEqual([]);
    expect(result).toBeInstanceOf(Error);
    const chain = causes(result);
    expect(chain.some((e) => e instanceof McpConnectionError)).toBe(true);
    expect(String(result)).toMatch(/connection is closed/);
  });

  it("after close(), prepareStep rejects and a call is a McpConnectionError result saying so", async () => {
    const { tools } = await hintedServer();
    await tools.close();
    await expect(tools.prepareStep({ tools })).rejects.toThrow(McpConnectionError);
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "look", args: {} }] }, { text: "ok" }]),
      tools,
    }).run("go");
    const call = result.steps[0]!.calls[0]!.result!;
    expect(call.isError).toBe(true);
    expect(String(call.output)).toMatch(/closed \(close\(\) was called\)/);
  });

  it("a passed Client whose owner later replaces onclose still fails closed when it closes", async () => {
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool("look", { inputSchema: {} }, async () => ({ content: [] }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(b);
    const tools = await opened(client);
    let theirs = 0;
    client.onclose = () => theirs++;
    await server.close();
    expect(theirs).toBe(1);
    await expect(tools.prepareStep({ tools })).rejects.toThrow(/connection is closed/);
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "look", args: {} }] }, { text: "ok" }]),
      tools,
    }).run("go");
    expect(String(result.steps[0]!.calls[0]!.result!.output)).toMatch(
      /MCP tool look: the MCP server's connection is closed/,
    );
  });

  it("`await using` closes the stdio server at the end of the block", async () => {
    let kept: McpToolset | undefined;
    {
      await using fs = await mcpTools(crashingStdio());
      kept = fs;
      expect(fs.names()).toContain("echo");
    }
    await expect(kept.prepareStep({ tools: kept })).rejects.toThrow(/close\(\) was called/);
  });

  it("onToolsChanged that throws is a failed refresh: the next step rejects naming it, with the cause", async () => {
    const boom = new Error("my handler broke");
    const tools = await opened(
      await (async () => {
        const [a, b] = InMemoryTransport.createLinkedPair();
        const server = new McpServer({ name: "s", version: "1" });
        server.registerTool("look", { inputSchema: {} }, async () => ({ content: [] }));
        await server.connect(a);
        const client = new Client({ name: "t", version: "1" });
        await client.connect(b);
        return client;
      })(),
      {
        onToolsChanged: () => {
          throw boom;
        },
      },
    );
    await expect(tools.refresh()).rejects.toThrow(/onToolsChanged threw: my handler broke/);
    await settle();
    expect(unhandled).toEqual([]);
    const error = await run(tools, { prepareStep: tools.prepareStep }, "look").catch((e) => e);
    expect(String(error)).toMatch(/onToolsChanged/);
    expect(causes(error)).toContain(boom);
  });
});

function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && out.length < 10; e = (e as Error).cause) out.push(e);
  return out;
}
