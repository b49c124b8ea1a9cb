/**
 * The claim: the Cedar adapter agrees with the rules document on the same calls. A
 * Cedar policy set written by hand with the meaning of a small rules document (tool names, a
 * numeric bound on an arg, an annotation, default deny, strictest wins) answers every random
 * call as `rulesPolicy(document)` does, and both as a plain oracle written here says.
 */
import fc from "fast-check";
import type { Tool, ToolAnnotations } from "tollgate";
import { cedarPolicy } from "tollgate/cedar";
import { type RulesDocument, rulesPolicy } from "tollgate/rules";
import { describe, expect, it } from "vitest";

const document: RulesDocument = {
  version: 1,
  default: "deny",
  rules: [
    { id: "no-deletes", effect: "deny", tool: "delete_file" },
    { id: "transfers", effect: "allow", tool: "transfer" },
    { id: "big-transfers", effect: "ask", tool: "transfer", args: { amount: { gt: 100 } } },
    { id: "read-only", effect: "allow", annotations: { readOnlyHint: true } },
  ],
};

const CEDAR = `
@id("no-deletes")
forbid(principal, action == Action::"delete_file", resource);

@id("transfers")
permit(principal, action == Action::"transfer", resource) when { context.args.amount <= 100 };

@id("big-transfers")
@ask
permit(principal, action == Action::"transfer", resource) when { context.args.amount > 100 };

@id("read-only")
permit(principal, action, resource)
when { context.annotations has readOnlyHint && context.annotations.readOnlyHint };
`;

type Verdict = "ALLOW" | "DENY" | "NEEDS_APPROVAL";

/** The document's meaning, written out: deny over ask over allow; nothing matched is a deny. */
function oracle(name: string, amount: number, annotations: ToolAnnotations): Verdict {
  if (name === "delete_file") return "DENY";
  if (name === "transfer" && amount > 100) return "NEEDS_APPROVAL";
  if (name === "transfer" || annotations.readOnlyHint === true) return "ALLOW";
  return "DENY";
}

const rules = rulesPolicy(document);
const cedar = cedarPolicy({ policies: CEDAR, principal: () => ({ type: "User", id: "ana" }) });

const hint = fc.constantFrom(true, false, undefined);
const calls = fc.record({
  name: fc.constantFrom("delete_file", "transfer", "search", "list_files"),
  amount: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(99, 100, 101)),
  annotations: fc.record(
    { readOnlyHint: hint, destructiveHint: hint, openWorldHint: hint },
    { requiredKeys: [] },
  ),
});

describe("cedarPolicy agrees with rulesPolicy on a document of the same meaning", () => {
  it("on random calls, both answer what the oracle says", () => {
    fc.assert(
      fc.property(calls, ({ name, amount, annotations }) => {
        const given: ToolAnnotations = Object.fromEntries(
          Object.entries(annotations).filter(([, value]) => value !== undefined),
        );
        const call = { id: "c1", name, args: { amount } };
        const tool = { name, annotations: given } as unknown as Tool;
        const args = { call, tool, needsApproval: false, step: 0, deps: undefined, executed: [] };
        const byRules = rules.decideToolCall(args as never) as { decision: Verdict };
        const byCedar = cedar.decideToolCall(args as never);
        const expected = oracle(name, amount, given);
        expect(byCedar.decision).toBe(expected);
        expect(byRules.decision).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
