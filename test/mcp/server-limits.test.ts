import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AgentLoop } from "tollgate";
import { McpConnectionError, McpToolError, mcpTools } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, describe, expect, it } from "vitest";

const BIG = fileURLToPath(new URL("../support/mcp-big-result-server.mjs", import.meta.url));
const bigStdio = (more: { maxBufferSize?: unknown } = {}) => ({
  command: process.execPath,
  args: [BIG],
  stderr: "ignore" as const,
  ...(more as { maxBufferSize?: number }),
});
const MiB = 1024 * 1024;

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const each of open.reverse()) await each.close().catch(() => {});
});
const opened = async (...args: Parameters<typeof mcpTools>) => {
  const tools = await mcpTools(...args);
  open.push(tools);
  return tools;
};

/** `promise`, or a rejection saying it took longer than `ms` (so a stall fails fast). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A low-level SDK server in this process, answering `tools/list` with `list` after a turn of the
 * event loop (as a server over a real transport would), so timers still fire while it lists.
 */
async function listingServer(
  list: (
    cursor: string | undefined,
    server: Server,
  ) => Promise<{ tools: unknown[]; nextCursor?: string }>,
) {
  const server = new Server(
    { name: "lister", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    await new Promise((resolve) => setImmediate(resolve));
    return (await list(request.params?.cursor, server)) as never;
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  open.push(server);
  return { server, client };
}

const info = (name: string) => ({ name, inputSchema: { type: "object" } });

describe("a server cannot stall a step with its listings", () => {
  it("a server whose every tools/list answer sends another list_changed: the step starts, offering one complete listing", async () => {
    let listings = 0;
    // Each listing is two pages, `a<n>` then `b<n>`; its first page announces another change.
    const { server, client } = await listingServer(async (cursor, srv) => {
      if (cursor !== undefined) return { tools: [info(`b${cursor}`)] };
      const n = ++listings;
      await srv.sendToolListChanged();
      return { tools: [info(`a${n}`)], nextCursor: String(n) };
    });
    const tools = await opened(client);
    await server.sendToolListChanged();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "done" }, { text: "again" }]),
      tools,
      policy: { prepareStep: tools.prepareStep },
    });
    try {
      for (const _ of [1, 2]) {
        const result = await within(3000, loop.run("go"));
        expect(result.status).toBe("completed");
        const offered = result.steps[0]!.tools;
        const n = offered[0]!.slice(1);
        expect(offered).toEqual([`a${n}`, `b${n}`]);
        // The listing offered was asked for after the change announced before the step.
        expect(Number(n)).toBeGreaterThan(1);
      }
      // Between steps the server's announcements start a bounded number of listings, not a loop.
      const before = listings;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(listings - before).toBeLessThanOrEqual(2);
    } finally {
      await server.close(); // ends its listings (and today's endless wait) whatever happened
    }
  });

  it("a listing whose pages never end is a McpConnectionError within timeoutMs, not a stall", async () => {
    let page = 0;
    const { server, client } = await listingServer(async () => ({
      tools: [info(`t${++page}`)],
      nextCursor: String(page),
    }));
    const error = await within(3000, mcpTools(client, { timeoutMs: 200 }))
      .catch((e) => e)
      .finally(() => server.close());
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(String(error)).toMatch(/did not finish within 200 ms/);
    expect(String(error)).toMatch(/pages/);
  });

  it("a listing that hands back a cursor it gave before is a McpConnectionError at once", async () => {
    const { server, client } = await listingServer(async (cursor) => ({
      tools: [info(cursor === undefined ? "first" : "again")],
      nextCursor: "same",
    }));
    const error = await within(3000, mcpTools(client))
      .catch((e) => e)
      .finally(() => server.close());
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(String(error)).toMatch(/cursor "same" again/);
  });
});

describe("a result over the stdio limit says what happened", () => {
  // The SDK reads 10 MiB in about 180 chunks, copying its buffer on each: this test takes a
  // fraction of a second on an idle machine, more on a busy one.
  it("an 11 MiB result: the call's error names the limit and maxBufferSize; later calls and steps say why the connection closed", {
    timeout: 60_000,
  }, async () => {
    const tools = await opened(bigStdio());
    const result = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "big", args: { bytes: 11 * MiB } }] },
        { toolCalls: [{ name: "echo", args: {} }] },
        { text: "done" },
      ]),
      tools,
    }).run("go");
    const first = result.steps[0]!.calls[0]!.result!;
    expect(first.isError).toBe(true);
    expect(String(first.output)).toMatch(
      /^MCP tool big: the connection to MCP server "big" closed/,
    );
    expect(String(first.output)).toMatch(/more than 10485760 bytes/);
    expect(String(first.output)).toMatch(/maxBufferSize/);
    const later = result.steps[1]!.calls[0]!.result!;
    expect(later.isError).toBe(true);
    expect(String(later.output)).toMatch(/more than 10485760 bytes/);
    expect(String(later.output)).toMatch(/open a new toolset with mcpTools\(\)/);
    await expect(tools.prepareStep({ tools })).rejects.toThrow(/more than 10485760 bytes/);
  });

  it("maxBufferSize on a stdio source is the SDK's limit: a result under it arrives, one over it is too large", async () => {
    const tools = await opened(bigStdio({ maxBufferSize: 4096 }));
    const result = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "big", args: { bytes: 3000 } }] },
        { toolCalls: [{ name: "big", args: { bytes: 8000 } }] },
        { text: "done" },
      ]),
      tools,
    }).run("go");
    const [under, over] = result.steps.slice(0, 2).map((step) => step.calls[0]!.result!);
    expect(under).toMatchObject({ isError: false, output: "x".repeat(3000) });
    expect(over!.isError).toBe(true);
    expect(String(over!.output)).toMatch(/more than 4096 bytes/);
  });

  it("a maxBufferSize that is not a positive whole number of bytes is a TypeError before anything starts", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10", null]) {
      await expect(mcpTools(bigStdio({ maxBufferSize: bad }))).rejects.toThrow(
        /maxBufferSize must be a positive whole number of bytes/,
      );
    }
  });
});

describe("an MCP error result keeps the server's structured error", () => {
  it("isError: true with only structuredContent: the model reads the structured error", async () => {
    const server = new McpServer({ name: "quota", version: "1.0.0" });
    server.registerTool("spend", { inputSchema: {} }, async () => ({
      content: [],
      structuredContent: { code: "E_QUOTA", detail: "monthly quota used up", retryAfter: 3600 },
      isError: true,
    }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    open.push(server);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(b);
    const tools = await opened(client);
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "spend", args: {} }] }, { text: "done" }]),
      tools,
    }).run("go");
    const output = result.steps[0]!.calls[0]!.result!;
    expect(output.isError).toBe(true);
    expect(String(output.output)).not.toMatch(/no message/);
    expect(String(output.output)).toContain(
      '{"code":"E_QUOTA","detail":"monthly quota used up","retryAfter":3600}',
    );
    const spend = tools.get("spend");
    const thrown = await Promise.resolve()
      .then(() => spend.execute({}, { signal: new AbortController().signal } as never))
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(McpToolError);
    expect((thrown as McpToolError).structuredContent).toEqual({
      code: "E_QUOTA",
      detail: "monthly quota used up",
      retryAfter: 3600,
    });
  });
});
