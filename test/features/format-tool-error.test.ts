import { AgentLoop, PolicyError, type ToolErrorInfo, ToolRetriesExceededError } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { agent, resultOf, results, sendTo } from "../support/send-wipe-note-agent.js";

describe("formatToolError", () => {
  it("writes the text the model reads for blocked, denied, invalid and unavailable calls; records keep the reason", async () => {
    const infos: ToolErrorInfo[] = [];
    const a = agent(
      [
        {
          toolCalls: [
            { id: "b1", name: "note", args: { text: "block me" } },
            { id: "d1", name: "note", args: { text: "deny me" } },
            { id: "i1", name: "note", args: "{" },
            { id: "u1", name: "nope", args: {} },
          ],
        },
        { text: "ok" },
      ],
      {
        maxRetries: 2,
        preToolCall: [
          (call) =>
            (call.args as { text: string }).text === "block me"
              ? { block: "no blocking" }
              : undefined,
        ],
        policy: {
          decideToolCall: ({ call }) =>
            (call.args as { text: string }).text === "deny me"
              ? { decision: "DENY", reason: "no denying" }
              : undefined,
        },
        formatToolError: (info) => {
          infos.push(info);
          return `[${info.kind}] ${info.toolName}`;
        },
      },
    );
    const result = await a.loop.run("go");
    expect(results(result.messages).map((r) => r.output)).toEqual([
      "[blocked] note",
      "[denied] note",
      "[invalid] note",
      "[unavailable] nope",
    ]);
    expect(infos.map((info) => info.kind)).toEqual(["blocked", "denied", "invalid", "unavailable"]);
    expect(infos[0]).toEqual({
      kind: "blocked",
      toolName: "note",
      message: "no blocking",
      reason: "no blocking",
    });
    expect(infos[1]).toEqual({
      kind: "denied",
      toolName: "note",
      message: "the call to note was denied: no denying",
      reason: "no denying",
    });
    expect(result.steps[0]!.calls.map((call) => call.reason)).toEqual([
      "no blocking",
      "no denying",
      expect.stringMatching(/invalid JSON/),
      expect.stringMatching(/not available/),
    ]);
  });

  it("writes the text of a human's refusal on resume, and of a remembered refusal", async () => {
    const infos: ToolErrorInfo[] = [];
    const a = agent(
      [
        { toolCalls: [sendTo("s1", "a@example.com")] },
        { toolCalls: [sendTo("s2", "b@example.com")] },
        { text: "ok" },
      ],
      {
        formatToolError: (info) => {
          infos.push(info);
          return `refused: ${info.reason}`;
        },
      },
    );
    const paused = await a.loop.run("go");
    const done = await a
      .make()
      .resume(paused.state, { s1: { approve: false, reason: "nope", remember: "tool" } });
    expect(infos.map((info) => info.kind)).toEqual(["refused", "refused"]);
    expect(resultOf(done.messages, "s1")?.output).toBe("refused: nope");
    expect(String(resultOf(done.messages, "s2")?.output)).toMatch(/^refused: refused for the rest/);
    expect(done.steps[0]!.calls[0]!.reason).toBe("nope");
  });

  it("the developer's error keeps the problem, not the formatted text", async () => {
    const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }], {
      maxRetries: 0,
      formatToolError: () => "try again",
    });
    const error = (await a.loop.run("go").catch((e: unknown) => e)) as ToolRetriesExceededError;
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect((error.cause as Error).message).toMatch(/not available/);
  });

  it("must return a string: anything else, or a throw, rejects the run with PolicyError", async () => {
    for (const format of [
      () => 42,
      () => undefined,
      () => Promise.resolve("later"),
      () => {
        throw new Error("format broke");
      },
    ]) {
      const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }, { text: "ok" }], {
        formatToolError: format as never,
      });
      const error = await a.loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("formatToolError");
    }
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), formatToolError: "x" as never }),
    ).toThrow(/`formatToolError` must be a function/);
  });

  it("without it, the model reads the default texts", async () => {
    const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }, { text: "ok" }]);
    const result = await a.loop.run("go");
    expect(String(resultOf(result.messages, "u1")?.output)).toMatch(
      /^tool nope is not available in this step/,
    );
  });
});
