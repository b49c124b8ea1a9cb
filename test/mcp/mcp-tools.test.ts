import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AgentLoop, type PreToolCallHook } from "tollgate";
import {
  McpConnectionError,
  McpToolNameError,
  type McpToolset,
  mcpAnnotationsPolicy,
  mcpTools,
  resolvedAnnotations,
} from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { everythingStdio, filesystemStdio, startEverythingHttp } from "../support/mcp-servers.js";

const open: McpToolset[] = [];
afterAll(async () => {
  for (const tools of open) await tools.close().catch(() => {});
});
const opened = async (...args: Parameters<typeof mcpTools>) => {
  const tools = await mcpTools(...args);
  open.push(tools);
  return tools;
};

describe("the everything server over stdio", () => {
  let tools: McpToolset;
  beforeAll(async () => {
    tools = await opened(everythingStdio(), { prefix: "ev_" });
  });

  it("lists its tools under prefixed, mapped names, with annotations and idempotent", () => {
    expect(tools.names()).toContain("ev_echo");
    expect(tools.names()).toContain("ev_trigger-long-running-operation");
    const image = tools.get("ev_get-tiny-image");
    expect(image.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(image.idempotent).toBe(true);
  });

  it("runs a call and feeds back text, image and structured results", async () => {
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "ev_echo", args: { message: "hi" } },
          { name: "ev_get-tiny-image", args: {} },
          { name: "ev_get-structured-content", args: { location: "Chicago" } },
        ],
      },
      { text: "done" },
    ]);
    const result = await new AgentLoop({ provider, tools }).run("go");
    expect(result.status).toBe("completed");
    const results = result.steps[0]!.calls.map((c) => c.result!);
    expect(results[0]).toMatchObject({ output: "Echo: hi", isError: false });
    expect(results[1]!.content?.some((part: { type: string }) => part.type === "image")).toBe(true);
    expect(results[2]!.output).toMatchObject({ temperature: expect.any(Number) });
  });

  it("refuses invalid args before the call, and the model sees why", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "ev_get-structured-content", args: { location: "Paris" } }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({ provider, tools }).run("go");
    const call = result.steps[0]!.calls[0]!.result;
    expect(call!.isError).toBe(true);
    expect(String(call!.output)).toMatch(/location/);
  });

  it("annotations reach hooks and the policy", async () => {
    const byHook: unknown[] = [];
    const byPolicy: unknown[] = [];
    const hook: PreToolCallHook = (call) => {
      byHook.push(call.annotations);
    };
    const result = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "ev_get-tiny-image", args: {} }] },
        { text: "done" },
      ]),
      tools,
      preToolCall: [hook],
      policy: {
        decideToolCall: ({ tool }) => {
          byPolicy.push(tool.annotations);
        },
      },
    }).run("go");
    expect(result.status).toBe("completed");
    const hints = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    expect(byHook).toEqual([expect.objectContaining(hints)]);
    expect(byPolicy).toEqual([expect.objectContaining(hints)]);
  });

  it("an aborted run cancels the in-flight MCP call", async () => {
    const controller = new AbortController();
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "ev_trigger-long-running-operation", args: { duration: 30, steps: 30 } },
        ],
      },
      { text: "never" },
    ]);
    const loop = new AgentLoop({ provider, tools });
    loop.on("tool-decision", () => setTimeout(() => controller.abort(new Error("stop")), 50));
    await expect(loop.run("go", { signal: controller.signal })).rejects.toThrow();
    // The connection is still usable: the cancelled request did not wedge it.
    const again = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "ev_echo", args: { message: "still here" } }] },
        { text: "ok" },
      ]),
      tools,
    }).run("go");
    expect(again.steps[0]!.calls[0]!.result!.output).toBe("Echo: still here");
  });
});

describe("the everything server over Streamable HTTP on 127.0.0.1", () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs a call", async () => {
    const tools = await opened({ url: server.url }, { include: ["echo"] });
    expect(tools.names()).toEqual(["echo"]);
    const result = await new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "echo", args: { message: "over http" } }] },
        { text: "ok" },
      ]),
      tools,
    }).run("go");
    expect(result.steps[0]!.calls[0]!.result!.output).toBe("Echo: over http");
  });

  it("a stopped server gives the model a typed connection error, not a crash", async () => {
    const tools = await opened({ url: server.url }, { include: ["echo"], timeoutMs: 5000 });
    await server.stop();
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "echo", args: { message: "anyone?" } }] },
        { text: "ok" },
      ]),
      tools,
    });
    const result = await loop.run("go");
    const call = result.steps[0]!.calls[0]!.result;
    expect(call!.isError).toBe(true);
    expect(String(call!.output)).toMatch(/MCP tool echo/);
  });
});

describe("the filesystem server on a temp folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-mcp-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a denied path is an isError result the model sees; a write pauses for approval", async () => {
    writeFileSync(join(dir, "a.txt"), "hello");
    const tools = await opened(filesystemStdio(dir), { prefix: "fs_" });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "fs_read_text_file", args: { path: "/etc/passwd" } }] },
        {
          toolCalls: [{ name: "fs_write_file", args: { path: join(dir, "b.txt"), content: "x" } }],
        },
        { text: "done" },
      ]),
      tools,
      policy: mcpAnnotationsPolicy({ destructive: "NEEDS_APPROVAL" }),
      trustState: true,
    });
    const paused = await loop.run("go");
    const denied = paused.steps[0]!.calls[0]!.result!;
    expect(denied.isError).toBe(true);
    expect(String(denied.output)).toMatch(/denied|outside/i);
    expect(paused.status).toBe("needs_approval");
    const id = paused.pending![0]!.toolCallId;
    const done = await loop.resume(paused.state!, { [id]: { approve: true } });
    expect(done.status).toBe("completed");
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("x");
  });
});

/** A real SDK server in this process, whose `unlock` tool adds a tool (and says so). */
async function growingServer() {
  const server = new McpServer({ name: "growing", version: "1.0.0" });
  server.registerTool("unlock", { inputSchema: {} }, async () => {
    server.registerTool(
      "secret.door",
      { description: "opened", inputSchema: { n: z.number() } },
      async ({ n }) => ({
        content: [{ type: "text", text: `door ${n}` }],
      }),
    );
    return { content: [{ type: "text", text: "unlocked" }] };
  });
  server.registerTool("fail", { inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "nope" }],
    isError: true,
  }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  return { server, client };
}

describe("list_changed and other cases, against an SDK server in this process", () => {
  it("a tool added by the server is offered from the next step on, never mid-step", async () => {
    const { client, server } = await growingServer();
    const tools = await mcpTools(client);
    const provider = scriptedProvider([
      { toolCalls: [{ name: "unlock", args: {} }] },
      { toolCalls: [{ name: "secret_door", args: { n: 7 } }] },
      { text: "done" },
    ]);
    const loop = new AgentLoop({ provider, tools, policy: { prepareStep: tools.prepareStep } });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(provider.requests[0]!.tools?.map((t) => t.name)).toEqual(["unlock", "fail"]);
    expect(provider.requests[1]!.tools?.map((t) => t.name)).toContain("secret_door");
    expect(result.steps[1]!.calls[0]!.result!.output).toBe("door 7");
    expect(tools.current().names()).toContain("secret_door");
    await tools.close();
    await server.close();
  });

  it("a tool that says nothing is destructive and open-world: paused, then run on approval", async () => {
    const { client, server } = await growingServer();
    const tools = await mcpTools(client);
    expect(tools.get("unlock").annotations).toEqual({});
    expect(resolvedAnnotations(tools.get("unlock"))).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "unlock", args: {} }] }, { text: "ok" }]),
      tools,
      policy: mcpAnnotationsPolicy({ destructive: "NEEDS_APPROVAL", readOnly: "ALLOW" }),
      trustState: true,
    });
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const id = paused.pending![0]!.toolCallId;
    const done = await loop.resume(paused.state!, { [id]: { approve: true } });
    expect(done.status).toBe("completed");
    expect(done.steps[0]!.calls[0]!.result!.output).toBe("unlocked");
    await server.close();
  });

  it("isError is an error result the model sees", async () => {
    const { client, server } = await growingServer();
    const tools = await mcpTools(client);
    const result = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "fail", args: {} }] }, { text: "ok" }]),
      tools,
    }).run("go");
    expect(result.steps[0]!.calls[0]!.result!).toMatchObject({
      isError: true,
      output: expect.stringMatching(/nope/),
    });
    await server.close();
  });

  it("two tools mapping to one name fail closed, naming both", async () => {
    const server = new McpServer({ name: "clash", version: "1" });
    server.registerTool("a.b", { inputSchema: {} }, async () => ({ content: [] }));
    server.registerTool("a_b", { inputSchema: {} }, async () => ({ content: [] }));
    const [x, y] = InMemoryTransport.createLinkedPair();
    await server.connect(x);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(y);
    await expect(mcpTools(client)).rejects.toThrow(McpToolNameError);
    await expect(mcpTools(client)).rejects.toThrow(/"a\.b" and "a_b"/);
    await server.close();
  });

  it("options and sources are checked fail-closed", async () => {
    await expect(mcpTools({ command: "x" }, { prefx: "a" } as never)).rejects.toThrow(
      /did you mean `prefix`/,
    );
    await expect(mcpTools({ nope: 1 } as never)).rejects.toThrow(TypeError);
    expect(() => mcpAnnotationsPolicy({ destructiv: "DENY" } as never)).toThrow(
      /did you mean `destructive`/,
    );
    expect(() => mcpAnnotationsPolicy({ destructive: "ASK" } as never)).toThrow(TypeError);
  });

  it("a server that cannot start is a typed connection error", async () => {
    await expect(
      mcpTools(
        { command: process.execPath, args: ["-e", "process.exit(3)"], stderr: "ignore" },
        { timeoutMs: 5000 },
      ),
    ).rejects.toThrow(McpConnectionError);
  });
});
