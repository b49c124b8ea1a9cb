import { AgentLoop, PolicyError, type PreToolCallHook, tool } from "tollgate";
import { mcpAnnotationsPolicy, resolvedAnnotations } from "tollgate/mcp";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hintedServer, run } from "../support/mcp-hinted-server.js";

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
