/**
 * The property: on random calls (tool names, path and numeric args, annotations,
 * histories), the rules policy of examples/rules.json decides what a plain TypeScript policy
 * of the same meaning decides. The oracle is written by hand below, without the rules code.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { tool } from "tollgate";
import { type RulesDocument, rulesPolicy } from "tollgate/rules";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const example = JSON.parse(
  readFileSync(new URL("../../examples/rules.json", import.meta.url), "utf8"),
) as RulesDocument;

type Verdict = "ALLOW" | "DENY" | "NEEDS_APPROVAL";
interface Call {
  name: string;
  args: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** examples/rules.json, in TypeScript: strictest wins, default ask. */
function oracle(call: Call, executed: string[]): Verdict {
  const path = call.args.path;
  const amount = call.args.amountEur;
  // no-secrets: a path whose last segment starts with ".env"; a path it cannot read is denied.
  if (call.name === "read_file") {
    if (typeof path !== "string") return "DENY";
    const last = path.slice(path.lastIndexOf("/") + 1);
    if (last.startsWith(".env")) return "DENY";
  }
  if (call.name === "refund") {
    const isNumber = typeof amount === "number";
    // big-refunds: over 100, or an amount it cannot read.
    if (!isNumber || amount > 100) return "NEEDS_APPROVAL";
    // refunds: up to 100, three times a run.
    if (executed.filter((name) => name === "refund").length < 3) return "ALLOW";
  }
  // reads
  if (call.annotations?.readOnlyHint === true) return "ALLOW";
  return "NEEDS_APPROVAL";
}

const segment = fc.constantFrom(
  ".env",
  ".env.local",
  ".envrc",
  "env",
  "x.env",
  "a",
  "src",
  "..",
  "",
);
const path = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")),
  fc.string({ maxLength: 8 }),
  fc.integer(),
);
const amount = fc.oneof(
  fc.integer({ min: -50, max: 300 }),
  fc.double({ min: 99, max: 101, noNaN: true }),
  fc.constantFrom(100, "50", null),
);
const args = fc.record(
  { path, amountEur: amount, other: fc.string({ maxLength: 3 }) },
  { requiredKeys: [] },
);
const annotations = fc.option(
  fc.record({ readOnlyHint: fc.boolean(), destructiveHint: fc.boolean() }, { requiredKeys: [] }),
  { nil: undefined },
);
const name = fc.constantFrom("read_file", "refund", "refunds", "read_files", "other");
const call = fc
  .record({ name, args, annotations })
  .map(({ annotations, ...rest }): Call => (annotations ? { ...rest, annotations } : rest));
const executed = fc.array(fc.constantFrom("refund", "read_file", "other"), { maxLength: 6 });

describe("rules policy and a hand-written policy agree", () => {
  const policy = rulesPolicy(example);

  it("explain and decideToolCall decide what the oracle decides", () => {
    fc.assert(
      fc.property(call, executed, (call, executed) => {
        const expected = oracle(call, executed);
        expect(policy.explain(call, { executed }).decision).toBe(expected);
        const asTool = tool({
          name: call.name,
          description: "t",
          input: z.object({}).passthrough(),
          ...(call.annotations ? { annotations: call.annotations } : {}),
          execute: () => null,
        });
        const answer = policy.decideToolCall({
          call: { id: "c", name: call.name, args: call.args, rawArgs: JSON.stringify(call.args) },
          tool: asTool,
          needsApproval: false,
          step: 0,
          deps: undefined,
          executed,
        });
        expect(answer).toMatchObject({ decision: expected });
      }),
      { numRuns: 500 },
    );
  });

  it("the order of the rules does not matter (strictest wins)", () => {
    fc.assert(
      fc.property(call, executed, fc.nat(), (call, executed, seed) => {
        const rules = [...example.rules];
        const shuffled = rules.map((rule, i) => ({ rule, key: (seed * (i + 7)) % 13 }));
        shuffled.sort((a, b) => a.key - b.key);
        const reordered = rulesPolicy({ ...example, rules: shuffled.map((s) => s.rule) });
        expect(reordered.explain(call, { executed }).decision).toBe(oracle(call, executed));
      }),
      { numRuns: 200 },
    );
  });
});
