import type { RunResult } from "tollgate";
import { tollgateMatchers } from "tollgate/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { notesLoop } from "../support/decision-runs.js";

/** The failure message of an assertion that must fail. */
function failureOf(assertion: () => void): string {
  try {
    assertion();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the assertion passed, and it should have failed");
}

/** Every table line the message must hold (header, rule, and one row per call). */
const tableOf =
  /The run's decisions \(status \w+\):\nstep \| tool +\| args +\| verdict +\| by +\| reason\n-{4} \| -+ \| -+ \| -+ \| -+ \| -+/;

let completed: RunResult;
let paused: RunResult;
let waitingForResult: RunResult;

beforeAll(async () => {
  completed = await notesLoop([
    {
      toolCalls: [
        { name: "read_note", args: { path: "a.txt" } },
        { name: "read_note", args: { path: "/etc/passwd" } },
      ],
    },
    {
      toolCalls: [
        { name: "send_note", args: { to: "eve@evil.test" } },
        { name: "send_note", args: { to: "bo@example.com" } },
      ],
    },
    { text: "done" },
  ]).run("go");
  paused = await notesLoop([
    {
      toolCalls: [
        { name: "read_note", args: { path: "b.txt" } },
        { name: "delete_note", args: { path: "old.txt" } },
      ],
    },
  ]).run("go");
  waitingForResult = await notesLoop([{ toolCalls: [{ name: "pick_file", args: {} }] }]).run("go");
});

describe("tollgate/vitest registers its matchers on import", () => {
  it("the matchers object is exported for expect.extend", () => {
    expect(Object.keys(tollgateMatchers).sort()).toEqual([
      "toHaveBlocked",
      "toHaveCalledTool",
      "toHaveDenied",
      "toHavePausedFor",
      "toHaveRequestedTool",
      "toHaveRunTool",
      "toHaveRunTools",
    ]);
    expect(() => expect.extend(tollgateMatchers)).not.toThrow();
  });
});

describe("toHaveCalledTool", () => {
  it("passes for a tool that ran, with args deep-equal or asymmetric", () => {
    expect(completed).toHaveCalledTool("read_note");
    expect(completed).toHaveCalledTool("read_note", { path: "a.txt" });
    expect(completed).toHaveCalledTool(
      "send_note",
      expect.objectContaining({ to: expect.stringMatching(/example\.com$/) }),
    );
    expect(completed).not.toHaveCalledTool("delete_note");
    expect(completed).not.toHaveCalledTool("read_note", { path: "/etc/passwd" });
  });

  it("fails with the decision table: a tool that was called but did not run, or ran with other args", () => {
    const message = failureOf(() =>
      expect(completed).toHaveCalledTool("read_note", { path: "/etc/passwd" }),
    );
    expect(message).toContain(
      'expected the run to have run read_note with args {"path":"/etc/passwd"}, but it ran read_note only with {"path":"a.txt"}',
    );
    expect(message).toMatch(tableOf);
    expect(message).toMatch(
      /^1 +\| send_note \| \{"to":"eve@evil\.test"\} +\| deny +\| policy \| outside recipients are not allowed$/m,
    );
    expect(message).toMatch(
      /^0 +\| read_note \| \{"path":"\/etc\/passwd"\} +\| block +\| hook:0 \| \/etc is off limits$/m,
    );

    const paused_ = failureOf(() => expect(paused).toHaveCalledTool("delete_note"));
    expect(paused_).toContain(
      "expected the run to have run delete_note, but the model asked for delete_note and it did not run (needs-approval)",
    );
    expect(paused_).toMatch(
      /^0 +\| delete_note \| \{"path":"old\.txt"\} \| needs-approval \| policy \| \(waits for approval\)$/m,
    );
  });

  it(".not fails for a tool that ran, with the table", () => {
    const message = failureOf(() => expect(completed).not.toHaveCalledTool("read_note"));
    expect(message).toContain("expected the run not to have run read_note, but it did (step 0)");
    expect(message).toMatch(tableOf);
  });
});

describe("toHaveDenied", () => {
  it("passes for a denied call, .not for the others", () => {
    expect(completed).toHaveDenied("send_note");
    expect(completed).not.toHaveDenied("read_note");
  });

  it("fails with what the calls were", () => {
    const message = failureOf(() => expect(completed).toHaveDenied("read_note"));
    expect(message).toContain(
      "expected the run to have denied read_note, but its calls to read_note were allow, block",
    );
    expect(message).toMatch(tableOf);
    expect(failureOf(() => expect(completed).toHaveDenied("delete_note"))).toContain(
      "but the model never called delete_note",
    );
    expect(failureOf(() => expect(completed).not.toHaveDenied("send_note"))).toContain(
      "expected the run not to have denied send_note, but it did (step 1)",
    );
  });
});

describe("toHavePausedFor", () => {
  it("passes for a call waiting for approval or for a client-side result", () => {
    expect(paused).toHavePausedFor("delete_note");
    expect(waitingForResult).toHavePausedFor("pick_file");
    expect(paused).not.toHavePausedFor("read_note");
    expect(completed).not.toHavePausedFor("send_note");
  });

  it("fails saying what the run waits for", () => {
    const message = failureOf(() => expect(paused).toHavePausedFor("read_note"));
    expect(message).toContain(
      "expected the run to have paused for read_note, but it waits for delete_note (approval)",
    );
    expect(message).toMatch(tableOf);
    expect(failureOf(() => expect(completed).toHavePausedFor("send_note"))).toContain(
      "but it is completed, waiting for nothing",
    );
    expect(failureOf(() => expect(waitingForResult).not.toHavePausedFor("pick_file"))).toContain(
      "expected the run not to have paused for pick_file, but it waits for pick_file (result)",
    );
  });
});

describe("toHaveBlocked", () => {
  it("passes for a hook's block, with a reason as RegExp or a string it contains", () => {
    expect(completed).toHaveBlocked("read_note");
    expect(completed).toHaveBlocked("read_note", /off limits/);
    expect(completed).toHaveBlocked("read_note", "/etc is");
    expect(completed).not.toHaveBlocked("read_note", /forbidden/);
    expect(completed).not.toHaveBlocked("send_note");
  });

  it("fails with what the block said, or that there was none", () => {
    const message = failureOf(() => expect(completed).toHaveBlocked("read_note", /forbidden/));
    expect(message).toContain(
      'expected the run to have blocked read_note with /forbidden/, but its blocks of read_note said "/etc is off limits"',
    );
    expect(message).toMatch(tableOf);
    expect(failureOf(() => expect(completed).toHaveBlocked("send_note"))).toContain(
      "expected the run to have blocked send_note, but its calls to send_note were deny, allow",
    );
    expect(failureOf(() => expect(completed).not.toHaveBlocked("read_note", "off"))).toContain(
      'expected the run not to have blocked read_note with "off", but it did (step 0)',
    );
    expect(() => expect(completed).toHaveBlocked("read_note", 3 as never)).toThrow(
      /RegExp or a string/,
    );
  });
});

describe("toHaveRunTools", () => {
  it("passes for exactly the tools that ran, in order", () => {
    expect(completed).toHaveRunTools(["read_note", "send_note"]);
    expect(paused).toHaveRunTools(["read_note"]);
    expect(waitingForResult).toHaveRunTools([]);
    expect(completed).not.toHaveRunTools(["send_note", "read_note"]);
    expect(completed).not.toHaveRunTools(["read_note"]);
  });

  it("fails with what ran", () => {
    const message = failureOf(() => expect(completed).toHaveRunTools(["read_note"]));
    expect(message).toContain(
      'expected the run to have run ["read_note"], but it ran ["read_note","send_note"]',
    );
    expect(message).toMatch(tableOf);
    expect(failureOf(() => expect(paused).not.toHaveRunTools(["read_note"]))).toContain(
      'expected the run not to have run ["read_note"]',
    );
    expect(() => expect(completed).toHaveRunTools("read_note" as never)).toThrow(
      /array of strings/,
    );
  });
});

describe("a value that is not a run result fails every matcher, with .not too", () => {
  const notResults: [unknown, RegExp][] = [
    [
      undefined,
      /toHave\w+: expected a RunResult \(what loop\.run\(\) resolves with\), got undefined/,
    ],
    [{ status: "completed" }, /got an object whose steps are undefined/],
    [Promise.resolve(), /got a promise \(await loop\.run\(\) first\)/],
  ];
  it.each(notResults)("%s", (value, message) => {
    expect(() => expect(value).toHaveCalledTool("a")).toThrow(message);
    expect(() => expect(value).not.toHaveCalledTool("a")).toThrow(message);
    expect(() => expect(value).toHaveDenied("a")).toThrow(message);
    expect(() => expect(value).not.toHavePausedFor("a")).toThrow(message);
    expect(() => expect(value).not.toHaveBlocked("a", /x/)).toThrow(message);
    expect(() => expect(value).not.toHaveRunTools([])).toThrow(message);
  });

  it("a tool name that is not a string is a TypeError", () => {
    expect(() => expect(completed).toHaveDenied(undefined as never)).toThrow(/non-empty string/);
  });
});

describe("a tool name the run never offered is a TypeError, so a typo cannot pass", () => {
  it("with .not and without, for every matcher that takes names", () => {
    expect(() => expect(completed).not.toHaveCalledTool("delete_notes")).toThrow(
      /toHaveCalledTool: the run never offered a tool named "delete_notes" nor was asked for one \(it offered: .*delete_note.*\); check the name/,
    );
    expect(() => expect(completed).not.toHaveDenied("delet_note")).toThrow(TypeError);
    expect(() => expect(paused).not.toHavePausedFor("delete_nte")).toThrow(TypeError);
    expect(() => expect(completed).not.toHaveBlocked("readnote")).toThrow(TypeError);
    expect(() => expect(completed).not.toHaveRunTools(["read_notes"])).toThrow(TypeError);
    // A tool offered but never called is a fair name for .not.
    expect(completed).not.toHaveCalledTool("delete_note");
  });
});
