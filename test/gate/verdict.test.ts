/**
 * Reading a pre-call hook's verdict (DESIGN §4): fail closed on anything but `undefined` or a
 * plain object whose keys are the documented ones, each of its type. The problem texts are
 * what a user reads when a hook answers wrongly, so they are asserted in full.
 */
import { AgentLoop, HookError, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readPreCallVerdict } from "../../src/gate/verdict.js";

const KEYS = "`stop`, `stopReason`, `block`, `confirm`, `args`, `result`";

/** The problem text of an answer that must be refused (fails the test if it is accepted). */
function problemOf(answer: unknown): string {
  const read = readPreCallVerdict(answer);
  if (read.ok) throw new Error(`accepted ${String(answer)} as a verdict`);
  return read.problem;
}

const unknownKey = (key: string, hint?: string) =>
  `returned a verdict with the unknown key \`${key}\`${hint ? ` (did you mean ${hint}?)` : ""}; a verdict has only ${KEYS}`;

describe("answers that are not a plain object", () => {
  it.each([
    ["null", null],
    ["array", ["block"]],
    ["string", "block"],
    ["number", 0],
    ["boolean", false],
    ["function", () => ({ block: true })],
  ])("%s is refused, naming what it was and the keys a verdict has", (kind, answer) => {
    expect(problemOf(answer)).toBe(
      `returned ${kind}; return undefined or a plain verdict object with ${KEYS}`,
    );
  });

  it("a class instance is named by its class", () => {
    class Verdict {
      block = true;
    }
    expect(problemOf(new Verdict())).toBe(
      `returned a Verdict instance (not a plain object); return undefined or a plain verdict object with ${KEYS}`,
    );
    expect(problemOf(new Map([["block", true]]))).toMatch(/^returned a Map instance \(not a plain/);
  });

  it.each([
    ["an anonymous class", new (class {})()],
    ["a prototype without a constructor", Object.create(Object.create(null))],
    [
      "a prototype whose constructor has no usable name",
      Object.create({ constructor: { name: 7 } }),
    ],
  ])("%s is 'an object with another object as its prototype (not a plain object)'", (_, answer) => {
    expect(problemOf(answer)).toBe(
      `returned an object with another object as its prototype (not a plain object); return undefined or a plain verdict object with ${KEYS}`,
    );
  });

  it("undefined is no opinion; {} and Object.create(null) are empty verdicts", () => {
    expect(readPreCallVerdict(undefined)).toEqual({ ok: true, verdict: undefined });
    expect(readPreCallVerdict({})).toEqual({ ok: true, verdict: {} });
    const bare = Object.assign(Object.create(null), { block: "no", confirm: true });
    expect(readPreCallVerdict(bare)).toEqual({ ok: true, verdict: { block: "no", confirm: true } });
  });
});

describe("unknown keys", () => {
  // Every entry of the did-you-mean table: a word from another library points at ours.
  it.each([
    ["deny", "block"],
    ["denied", "block"],
    ["blocked", "block"],
    ["reject", "block"],
    ["rejected", "block"],
    ["skip", "block"],
    ["abort", "stop"],
    ["halt", "stop"],
    ["reason", "stopReason"],
    ["approve", "confirm"],
    ["approval", "confirm"],
    ["needsApproval", "confirm"],
    ["ask", "confirm"],
    ["input", "args"],
    ["arguments", "args"],
    ["output", "result"],
    ["value", "result"],
    ["decision", "block or confirm (a policy decision belongs in policy.decideToolCall)"],
  ])("`%s` is refused with 'did you mean %s?'", (key, hint) => {
    expect(problemOf({ [key]: true })).toBe(unknownKey(key, hint));
  });

  it("a near miss or a case slip gets the nearest key", () => {
    expect(problemOf({ Block: true })).toBe(unknownKey("Block", "block"));
    expect(problemOf({ confirmed: true })).toBe(unknownKey("confirmed", "confirm"));
    expect(problemOf({ stopreason: "x" })).toBe(unknownKey("stopreason", "stopReason"));
  });

  it("a key near nothing gets no hint", () => {
    expect(problemOf({ foo: true })).toBe(unknownKey("foo"));
  });

  it("the name of something every object inherits is an unknown key too, even when undefined", () => {
    expect(problemOf({ toString: undefined })).toBe(unknownKey("toString"));
    expect(problemOf({ constructor: true })).toBe(unknownKey("constructor"));
    expect(problemOf(JSON.parse('{"__proto__": {"block": true}}'))).toBe(unknownKey("__proto__"));
  });

  it("an unknown key is refused even next to valid ones, whatever its value", () => {
    expect(problemOf({ confirm: false, deny: undefined })).toBe(unknownKey("deny", "block"));
  });
});

describe("values of the wrong type", () => {
  it.each([
    [{ confirm: "yes" }, '`confirm: "yes"`; `confirm` must be a boolean'],
    [{ confirm: null }, "`confirm: null`; `confirm` must be a boolean"],
    [{ stop: 1 }, "`stop: 1`; `stop` must be a boolean"],
    [{ stop: {} }, "`stop: object`; `stop` must be a boolean"],
    [{ stop: [true] }, "`stop: array`; `stop` must be a boolean"],
    [{ stop: 1n }, "`stop: 1`; `stop` must be a boolean"],
    [{ stop: Symbol("now") }, "`stop: Symbol(now)`; `stop` must be a boolean"],
    [{ stopReason: 42 }, "`stopReason: 42`; `stopReason` must be a string"],
    [{ stopReason: false }, "`stopReason: false`; `stopReason` must be a string"],
    [{ block: 0 }, "`block: 0`; `block` must be a boolean or a string"],
    [{ block: null }, "`block: null`; `block` must be a boolean or a string"],
    [{ block: { message: "no" } }, "`block: object`; `block` must be a boolean or a string"],
  ])("%o is refused: %s", (answer, problem) => {
    expect(problemOf(answer)).toBe(`returned ${problem}`);
  });

  it("a string shown in the message is quoted, so an empty one is visible", () => {
    expect(problemOf({ stop: "" })).toBe('returned `stop: ""`; `stop` must be a boolean');
  });
});

describe("valid verdicts", () => {
  it("keeps each key of its type; args and result may be anything", () => {
    const verdict = {
      stop: true,
      stopReason: "",
      block: "not today",
      confirm: true,
      args: null,
      result: 0,
    };
    expect(readPreCallVerdict(verdict)).toEqual({ ok: true, verdict });
    expect(readPreCallVerdict({ block: true })).toEqual({ ok: true, verdict: { block: true } });
    expect(readPreCallVerdict({ block: "" })).toEqual({ ok: true, verdict: { block: "" } });
  });

  it("refuses a stopReason without stop: true (it would let the call go on silently)", () => {
    for (const verdict of [{ stopReason: "x" }, { stop: false, stopReason: "x" }]) {
      expect(readPreCallVerdict(verdict)).toEqual({
        ok: false,
        problem:
          "returned `stopReason` without `stop: true`; add stop: true to stop the run, or leave stopReason out",
      });
    }
  });

  it("drops keys given as undefined and reads each key once into a fresh object", () => {
    let reads = 0;
    const answer = {
      block: undefined,
      get confirm() {
        reads++;
        return false;
      },
    };
    const read = readPreCallVerdict(answer);
    expect(reads).toBe(1);
    expect(read).toEqual({ ok: true, verdict: { confirm: false } });
    expect(read.ok && Object.keys(read.verdict ?? {})).toEqual(["confirm"]);
    expect(read.ok && read.verdict !== answer).toBe(true);
  });
});

describe("through the loop", () => {
  it("a hook answering with another library's word rejects with HookError that names ours; nothing runs", async () => {
    const ran: string[] = [];
    const send = tool({
      name: "send",
      input: z.object({ to: z.string() }),
      execute: ({ to }) => {
        ran.push(to);
        return "sent";
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "send", args: { to: "bob" } }] },
        { text: "done" },
      ]),
      tools: [send],
      preToolCall: [() => ({ approve: false }) as never],
    });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookError);
    expect((error as HookError).message).toBe(
      `pre-call hook 0 (preToolCall[0]) ${unknownKey("approve", "confirm")} (tool send); the call did not run`,
    );
    expect(ran).toEqual([]);
  });
});
