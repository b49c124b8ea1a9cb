import { HookError } from "tollgate";
import { decisionsOf, formatDecisions } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { notesLoop } from "../support/decision-runs.js";

describe("decisionsOf", () => {
  it("lists every call of a completed run in order, with its step, args, verdict, who decided and why", async () => {
    const result = await notesLoop([
      {
        toolCalls: [
          { name: "read_note", args: { path: "a.txt" } },
          { name: "read_note", args: { path: "/etc/passwd" } },
        ],
      },
      {
        toolCalls: [
          { name: "send_note", args: { to: "eve@evil.test" } },
          { name: "nope", args: {} },
          { name: "read_note", args: "{not json" },
        ],
      },
      { text: "done" },
    ]).run("go");
    expect(result.status).toBe("completed");
    const decisions = decisionsOf(result);
    expect(decisions.map(({ toolCallId: _, reason, ...rest }) => rest)).toEqual([
      {
        step: 0,
        tool: "read_note",
        args: { path: "a.txt" },
        verdict: "allow",
        by: "policy",
        ran: true,
      },
      {
        step: 0,
        tool: "read_note",
        args: { path: "/etc/passwd" },
        verdict: "block",
        by: "hook:0",
        ran: false,
      },
      {
        step: 1,
        tool: "send_note",
        args: { to: "eve@evil.test" },
        verdict: "deny",
        by: "policy",
        ran: false,
      },
      { step: 1, tool: "nope", args: "{}", verdict: "unavailable", by: "default", ran: false },
      {
        step: 1,
        tool: "read_note",
        args: "{not json",
        verdict: "invalid",
        by: "schema",
        ran: false,
      },
    ]);
    expect(decisions[1]!.reason).toBe("/etc is off limits");
    expect(decisions[2]!.reason).toBe("outside recipients are not allowed");
    expect(decisions[0]).not.toHaveProperty("reason");
    expect(decisions.map((d) => d.toolCallId)).toEqual([
      "call_0_0",
      "call_0_1",
      "call_1_0",
      "call_1_1",
      "call_1_2",
    ]);
  });

  it("a paused run: the call waiting for approval and the one waiting for a client-side result say so", async () => {
    const result = await notesLoop([
      {
        toolCalls: [
          { name: "delete_note", args: { path: "old.txt" } },
          { name: "pick_file", args: {} },
        ],
      },
    ]).run("go");
    expect(result.status).toBe("needs_approval");
    expect(decisionsOf(result).map((d) => [d.tool, d.verdict, d.ran, d.waitsFor])).toEqual([
      ["delete_note", "needs-approval", false, "approval"],
      ["pick_file", "allow", false, "result"],
    ]);
  });

  it("after resume, an approved call reads as allowed by approval and ran; a refused one as denied", async () => {
    const turns = [
      {
        toolCalls: [
          { name: "delete_note", args: { path: "a.txt" } },
          { name: "delete_note", args: { path: "b.txt" } },
        ],
      },
      { text: "done" },
    ];
    const loop = notesLoop(turns, { trustState: true });
    const paused = await loop.run("go");
    const [a, b] = paused.pending ?? [];
    const result = await loop.resume(paused.state, {
      [a!.toolCallId]: { approve: true },
      [b!.toolCallId]: { approve: false, reason: "keep it" },
    });
    expect(decisionsOf(result).map((d) => [d.args, d.verdict, d.by, d.ran, d.reason])).toEqual([
      [{ path: "a.txt" }, "allow", "approval", true, undefined],
      [{ path: "b.txt" }, "deny", "approval", false, "keep it"],
    ]);
  });

  it("a stopped run and a run that hit a limit have their decisions too", async () => {
    const stopped = await notesLoop([{ toolCalls: [{ name: "read_note", args: { path: "x" } }] }], {
      preToolCall: [() => ({ stop: true, stopReason: "enough" })],
    }).run("go");
    expect(stopped.status).toBe("stopped");
    expect(decisionsOf(stopped).map((d) => [d.tool, d.verdict, d.by, d.reason])).toEqual([
      ["read_note", "stop", "hook:0", "enough"],
    ]);

    const limited = await notesLoop(
      [
        {
          toolCalls: [
            { name: "read_note", args: { path: "a" } },
            { name: "read_note", args: { path: "b" } },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    ).run("go");
    expect(limited.status).toBe("limit_reached");
    expect(decisionsOf(limited).map((d) => [d.args, d.ran])).toEqual([
      [{ path: "a" }, true],
      [{ path: "b" }, false],
    ]);
    // The table says which allowed call did not run.
    const rows = formatDecisions(decisionsOf(limited)).split("\n").slice(2);
    expect(rows[0]).not.toMatch(/did not run/);
    expect(rows[1]).toMatch(/\| \(did not run\)$/);
  });

  it("a run without tool calls has none", async () => {
    const result = await notesLoop([{ text: "hi" }]).run("go");
    expect(decisionsOf(result)).toEqual([]);
    expect(formatDecisions([])).toBe("(no tool calls)");
  });

  it("fails closed: anything that is not a RunResult is a TypeError saying what it got", async () => {
    const bad: [unknown, RegExp][] = [
      [undefined, /expected a RunResult .*got undefined/],
      [null, /got null/],
      ["completed", /got a string \("completed"\)/],
      [[], /got an array/],
      [{ status: "done", steps: [] }, /status is a string \("done"\)/],
      [{ status: "completed" }, /steps are undefined/],
      [{ status: "completed", steps: [{ index: 0 }] }, /steps\[0\] is not a step record/],
      [
        { status: "completed", steps: [{ index: 0, calls: [{ toolName: "a" }] }] },
        /steps\[0\]\.calls\[0\] is not a call record/,
      ],
      [Promise.resolve(), /got a promise \(await loop\.run\(\) first\)/],
    ];
    for (const [value, message] of bad) {
      expect(() => decisionsOf(value as never)).toThrow(TypeError);
      expect(() => decisionsOf(value as never)).toThrow(message);
    }
    const error = await notesLoop([{ toolCalls: [{ name: "read_note", args: { path: "x" } }] }], {
      preToolCall: [() => ({ nope: true }) as never],
    })
      .run("go")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(() => decisionsOf(error as never)).toThrow(
      /got HookError: .*only its transcript on error\.messages/,
    );
  });
});

describe("formatDecisions", () => {
  it("is an aligned table with short args", async () => {
    const long = "x".repeat(200);
    const result = await notesLoop([
      {
        toolCalls: [
          { name: "read_note", args: { path: long } },
          { name: "send_note", args: { to: "eve@evil.test" } },
        ],
      },
      { text: "done" },
    ]).run("go");
    const table = formatDecisions(decisionsOf(result), { argsWidth: 30 });
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^step \| tool {6}\| args {27}\| verdict \| by {5}\| reason$/);
    expect(lines[1]).toMatch(/^-{4} \| -{9} \| -{30} \| -{7} \| -{6} \| -{34}$/);
    expect(lines[2]).toBe(`0    | read_note | {"path":"${"x".repeat(20)}… | allow   | policy |`);
    expect(lines[3]).toBe(
      `0    | send_note | {"to":"eve@evil.test"}         | deny    | policy | outside recipients are not allowed`,
    );
    expect(() => formatDecisions("x" as never)).toThrow(TypeError);
    expect(() => formatDecisions([], { argsWidth: 2 })).toThrow(/argsWidth/);
  });

  it("fails closed on what is not a decision, or an option it does not know", () => {
    expect(() => formatDecisions([{}] as never)).toThrow(
      "formatDecisions: decisions[0] is an object, not a decision (give it what decisionsOf(result) returns)",
    );
    expect(() => formatDecisions([null] as never)).toThrow(/decisions\[0\] is null/);
    expect(() => formatDecisions([], { colour: true } as never)).toThrow(
      /formatDecisions: unknown option `colour`/,
    );
  });

  it("a | or a line break in a value does not break the table", () => {
    const decision = {
      step: 0,
      tool: "t",
      args: "a|b",
      verdict: "deny",
      by: "policy",
      reason: "no\nway | here",
      toolCallId: "c",
      ran: false,
    } as const;
    const [, , row] = formatDecisions([decision]).split("\n");
    expect(row).toBe("0    | t    | a\\|b | deny    | policy | no way \\| here");
  });
});
