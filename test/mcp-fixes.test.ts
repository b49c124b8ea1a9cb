import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AgentLoop, type LoopPolicy, PolicyError, type PreToolCallHook, tool } from "tollgate";
import {
  McpConnectionError,
  type McpToolset,
  mcpAnnotationsPolicy,
  mcpTools,
  resolvedAnnotations,
} from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { collectUnhandledRejections } from "./support/unhandled.js";

const CRASHING = fileURLToPath(new URL("./support/mcp-crashing-server.mjs", import.meta.url));
const crashingStdio = () => ({
  command: process.execPath,
  args: [CRASHING],
  stderr: "ignore" as const,
});

const open: McpToolset[] = [];
afterAll(async () => {
  for (const tools of open) await tools.close().catch(() => {});
});
const opened = async (...args: Parameters<typeof mcpTools>) => {
  const tools = await mcpTools(...args);
  open.push(tools);
  return tools;
};

/** Lets pending microtasks and one macrotask run, so an unhandled rejection is reported. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A real SDK server in this process: `wipe` is destructive, `look` read-only and closed-world. */
async function hintedServer() {
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

const run = (tools: McpToolset, policy: LoopPolicy<any>, name = "wipe") =>
  new AgentLoop({
    provider: scriptedProvider([{ toolCalls: [{ name, args: {} }] }, { text: "ok" }]),
    tools,
    policy,
    trustState: true,
  }).run("go");

describe("mcpAnnotationsPolicy(options, policy): your policy and the MCP rule, stricter wins", () => {
  it("the MCP rule's DENY stands over your ALLOW, and your other methods are kept", async () => {
    const { tools } = await hintedServer();
    let prepared = 0;
    const policy = mcpAnnotationsPolicy(
      { destructive: "DENY" },
      {
        decideToolCall: () => "ALLOW",
        prepareStep: (args) => {
          prepared++;
          return tools.prepareStep(args);
        },
      },
    );
    const result = await run(tools, policy);
    const call = result.steps[0]!.calls[0]!;
    expect(call.result!.isError).toBe(true);
    expect(call.verdict).toBe("deny");
    expect(prepared).toBeGreaterThan(0);
  });

  it("your DENY stands over the MCP rule's ALLOW, with your reason (also async)", async () => {
    const { tools } = await hintedServer();
    const policy = mcpAnnotationsPolicy(
      { readOnly: "ALLOW" },
      { decideToolCall: async () => ({ decision: "DENY", reason: "mine says no" }) },
    );
    const result = await run(tools, policy, "look");
    expect(result.steps[0]!.calls[0]!).toMatchObject({ verdict: "deny", reason: "mine says no" });
  });

  it("on a tie, yours is the answer (with your reason)", async () => {
    const { tools } = await hintedServer();
    const policy = mcpAnnotationsPolicy(
      { destructive: "NEEDS_APPROVAL" },
      { decideToolCall: () => ({ decision: "NEEDS_APPROVAL", reason: "ask Bob" }) },
    );
    const paused = await run(tools, policy);
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending![0]!.reason).toBe("ask Bob");
  });

  it("an answer of yours that is not a decision is a PolicyError, even when the MCP rule denies", async () => {
    const { tools } = await hintedServer();
    const policy = mcpAnnotationsPolicy(
      { destructive: "DENY" },
      { decideToolCall: () => "ASK" as never },
    );
    await expect(run(tools, policy)).rejects.toThrow(PolicyError);
    const extraKey = mcpAnnotationsPolicy(
      { destructive: "DENY" },
      { decideToolCall: () => ({ decision: "ALLOW", because: "x" }) as never },
    );
    await expect(run(tools, extraKey)).rejects.toThrow(PolicyError);
  });

  it("no verdict at all, or a policy that is not one, is a TypeError", () => {
    expect(() => mcpAnnotationsPolicy({})).toThrow(/at least one of destructive, openWorld/);
    expect(() => mcpAnnotationsPolicy({ destructive: undefined })).toThrow(TypeError);
    expect(() => mcpAnnotationsPolicy({ destructive: "DENY" }, (() => {}) as never)).toThrow(
      TypeError,
    );
    expect(() =>
      mcpAnnotationsPolicy({ destructive: "DENY" }, { decideToolCall: "ALLOW" as never }),
    ).toThrow(/decideToolCall must be a function/);
  });

  it("a local tool with no annotations is refused with a reason naming the MCP defaults", async () => {
    const local = tool({
      name: "rm",
      description: "remove",
      input: z.object({}),
      execute: () => "gone",
    });
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "rm", args: {} }] }, { text: "ok" }]),
      tools: [local],
      policy: mcpAnnotationsPolicy({ destructive: "DENY" }),
    }).run("go");
    expect(result.steps[0]!.calls[0]!.reason).toBe(
      "no MCP hints: treated as destructive, open-world (MCP defaults)",
    );
  });

  it("hooks read the hints with the spec's defaults through resolvedAnnotations(call)", async () => {
    const { tools } = await hintedServer();
    const seen: boolean[] = [];
    const hook: PreToolCallHook = (call) => {
      seen.push(resolvedAnnotations(call).destructiveHint);
    };
    await new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "look", args: {} },
            { name: "wipe", args: {} },
          ],
        },
        { text: "ok" },
      ]),
      tools,
      preToolCall: [hook],
    }).run("go");
    expect(seen).toEqual([false, true]);
  });
});

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
