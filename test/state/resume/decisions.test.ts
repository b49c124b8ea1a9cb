import { describe, expect, it } from "vitest";
import { ResumeError } from "../../../src/errors.js";
import { checkDecisions } from "../../../src/state/resume/decisions.js";

/** The error `checkDecisions` throws for these decisions: a `ResumeError`, whose message is returned. */
function refusal(decisions: Record<string, unknown>): string {
  try {
    checkDecisions(decisions);
  } catch (error) {
    expect(error).toBeInstanceOf(ResumeError);
    return (error as ResumeError).message;
  }
  throw new Error("checkDecisions accepted the decisions");
}

const digest = "a".repeat(64);

describe("checkDecisions", () => {
  it("accepts well-formed decisions and result entries, and returns them as given", () => {
    const decisions = {
      c1: { approve: true, args: { to: "x" }, digest, remember: "tool" },
      c2: { approve: false, reason: "no" },
      c3: { result: { ok: true }, digest },
      c4: { error: "the user closed the dialog" },
    };
    expect(checkDecisions(decisions)).toBe(decisions);
  });

  it("a decision with an unknown key names the key, the one meant, and the keys a decision has", () => {
    expect(refusal({ c1: { aprove: true } })).toBe(
      "the decision for call c1 has the unknown key `aprove` (did you mean `approve`?); a decision has `approve`, `args`, `reason`, `digest`, `remember`",
    );
  });

  it("a result entry with an unknown key names the keys a result entry has", () => {
    expect(refusal({ c1: { result: 1, digets: digest } })).toBe(
      "the entry for call c1 has the unknown key `digets` (did you mean `digest`?); a result entry has `result` or `error`, and `digest`",
    );
  });

  it.each([
    ["not hex", "z".repeat(64)],
    ["too short", "abc"],
    ["too long", "a".repeat(65)],
    ["upper case", "A".repeat(64)],
    ["not a string", 42],
  ])(
    "a decision's digest that is not 64 hex digits (%s) says where the digest comes from",
    (_, bad) => {
      expect(refusal({ c1: { approve: true, digest: bad } })).toBe(
        "the decision for call c1: `digest` must be the 64-hex digest from the pending call",
      );
    },
  );

  it("a result entry's digest that is not 64 hex digits says where the digest comes from", () => {
    expect(refusal({ c1: { result: null, digest: "abc" } })).toBe(
      "the entry for call c1: `digest` must be the 64-hex digest from the external call",
    );
  });

  it("a result entry with both result and error says to give one", () => {
    expect(refusal({ c1: { result: 1, error: "failed" } })).toBe(
      "the entry for call c1 gives both `result` and `error`; give one",
    );
  });

  it("a result entry mixed with a decision says which to give for which call", () => {
    expect(refusal({ c1: { result: 1, approve: true } })).toMatch(
      /^the entry for call c1 mixes a client-side result with a decision \(`approve`\); give \{ result \} or \{ error \} for a call that waits for its result, \{ approve \} for one that waits for approval$/,
    );
  });

  it("a result of undefined says to give null or an error", () => {
    expect(refusal({ c1: { result: undefined } })).toBe(
      "the entry for call c1 has `result: undefined`; give the tool's result (null if it has none), or { error }",
    );
  });

  it("decisions that are not an object keyed by call id are refused", () => {
    expect(refusal([] as unknown as Record<string, unknown>)).toBe(
      "decisions must be an object keyed by tool call id",
    );
  });
});
