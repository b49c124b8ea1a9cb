import { AgentLoop, PolicyError, type RepairInfo, ToolRetriesExceededError, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agent, resultOf, roundTrip } from "../support/send-wipe-note-agent.js";

describe("repairToolCall", () => {
  it("fixes args that failed parsing: the fixed args are validated, run, and recorded with repairedFrom", async () => {
    const seen: RepairInfo[] = [];
    const a = agent(
      [{ toolCalls: [{ id: "n1", name: "note", args: "{text: 'hi'" }] }, { text: "ok" }],
      {
        repairToolCall: (info) => {
          seen.push(info);
          return { text: "hi" };
        },
      },
    );
    const result = await a.loop.run("go");
    expect(result.status).toBe("completed");
    expect(a.ran).toEqual(["note hi"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.call).toEqual({ id: "n1", name: "note", rawArgs: "{text: 'hi'" });
    expect(seen[0]!.tool.name).toBe("note");
    expect(seen[0]!.step).toBe(0);
    expect(seen[0]!.error).toMatch(/invalid JSON/);
    expect(seen[0]!.error).not.toMatch(/Send the arguments again/);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "allow",
      args: { text: "hi" },
      rawArgs: "{text: 'hi'",
      repairedFrom: "{text: 'hi'",
    });
    expect(resultOf(result.messages, "n1")).toMatchObject({ output: "noted", isError: false });
  });

  it("also fixes args the schema rejected, and may answer later (a promise)", async () => {
    const a = agent(
      [{ toolCalls: [{ id: "n1", name: "note", args: { text: 5 } }] }, { text: "ok" }],
      {
        repairToolCall: async ({ call }) => ({ text: String(JSON.parse(call.rawArgs).text) }),
      },
    );
    const result = await a.loop.run("go");
    expect(a.ran).toEqual(["note 5"]);
    expect(result.steps[0]!.calls[0]!.repairedFrom).toBe('{"text":5}');
  });

  it("the fixed args go through the hooks and the policy like the model's: a NEEDS_APPROVAL pauses, and resumes after a JSON round trip", async () => {
    const hookSaw: unknown[] = [];
    const a = agent(
      [{ toolCalls: [{ id: "s1", name: "send", args: { to: "bob" } }] }, { text: "ok" }],
      {
        preToolCall: [
          (call) => {
            hookSaw.push(call.args);
          },
        ],
        repairToolCall: () => ({ to: "bob@example.com" }),
      },
    );
    const paused = await a.loop.run("go");
    expect(hookSaw).toEqual([{ to: "bob@example.com" }]);
    expect(paused.status).toBe("needs_approval");
    expect(paused.state.pending?.[0]).toMatchObject({ args: { to: "bob@example.com" } });
    expect(paused.state.steps[0]!.calls[0]!.repairedFrom).toBe('{"to":"bob"}');
    const done = await a.make().resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(done.status).toBe("completed");
    expect(a.ran).toEqual(["send bob@example.com"]);
    expect(done.steps[0]!.calls[0]!.repairedFrom).toBe('{"to":"bob"}');
  });

  it("a policy DENY still denies repaired args", async () => {
    const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "oops" }] }, { text: "ok" }], {
      repairToolCall: () => ({ text: "secret" }),
      policy: { decideToolCall: () => ({ decision: "DENY", reason: "no notes" }) },
    });
    const result = await a.loop.run("go");
    expect(a.ran).toEqual([]);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "deny",
      by: "policy",
      repairedFrom: "oops",
    });
  });

  it("no fix (undefined) or a fix the schema rejects leaves the call invalid, with the model's own error", async () => {
    for (const fix of [undefined, { text: 7 }]) {
      const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "oops" }] }, { text: "ok" }], {
        repairToolCall: () => fix,
      });
      const result = await a.loop.run("go");
      expect(a.ran).toEqual([]);
      const call = result.steps[0]!.calls[0]!;
      expect(call).toMatchObject({ verdict: "invalid", by: "schema" });
      expect(call.repairedFrom).toBeUndefined();
      expect(String(resultOf(result.messages, "n1")?.output)).toMatch(/invalid JSON/);
    }
  });

  it("is not asked about valid calls, nor about tools that are not callable", async () => {
    let asked = 0;
    const a = agent(
      [
        {
          toolCalls: [
            { id: "n1", name: "note", args: { text: "fine" } },
            { id: "x1", name: "nope", args: "{" },
          ],
        },
        { text: "ok" },
      ],
      {
        maxRetries: 2,
        repairToolCall: () => {
          asked++;
          return undefined;
        },
      },
    );
    await a.loop.run("go");
    expect(asked).toBe(0);
  });

  it("counts like a retry against the tool's maxRetries", async () => {
    const a = agent(
      [
        { toolCalls: [{ id: "n1", name: "note", args: "bad" }] },
        { toolCalls: [{ id: "n2", name: "note", args: "bad" }] },
        { text: "ok" },
      ],
      { repairToolCall: () => ({ text: "fixed" }) },
    );
    const error = await a.loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    // The second repair is the second failure: past maxRetries (1), before the call runs.
    expect(a.ran).toEqual(["note fixed"]);
    const one = agent([{ toolCalls: [{ id: "n1", name: "note", args: "bad" }] }, { text: "ok" }], {
      repairToolCall: () => ({ text: "fixed" }),
    });
    const result = await one.loop.run("go");
    expect(result.state.retries).toEqual({ note: 1 });
  });

  it("a throwing repair, or one that answers what JSON cannot carry, rejects the run with PolicyError", async () => {
    const answers: (() => unknown)[] = [
      () => {
        throw new Error("repair broke");
      },
      () => ({ text: 1n }),
      () => () => "a function",
      () => Promise.reject(new Error("later")),
    ];
    for (const answer of answers) {
      const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "bad" }] }, { text: "ok" }], {
        repairToolCall: answer,
      });
      const error = await a.loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("repairToolCall");
      expect(a.ran).toEqual([]);
    }
  });

  it("must be a function", () => {
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), repairToolCall: "fix" as never }),
    ).toThrow(/`repairToolCall` must be a function/);
  });
});

describe("repairToolCall answering with text", () => {
  it("a string (JSON text not parsed) or null is a PolicyError saying to return data", async () => {
    for (const answer of ['{"to":"bob@example.com"}', null]) {
      const send = tool({
        name: "send",
        input: z.object({ to: z.string() }),
        execute: ({ to }) => `sent to ${to}`,
      });
      const loop = new AgentLoop({
        provider: scriptedProvider([{ toolCalls: [{ name: "send", args: "{'to': 'bob'}" }] }]),
        tools: [send],
        repairToolCall: () => answer,
      });
      await expect(loop.run("go")).rejects.toThrow(
        /repairToolCall .*returned (a string|null); return the fixed args as data \(JSON\.parse the text\), or undefined for no fix/,
      );
    }
  });
});
