import { readFileSync } from "node:fs";
import { AgentLoop, tool } from "tollgate";
import { type RulesDocument, rulesPolicy } from "tollgate/rules";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const example = JSON.parse(
  readFileSync(new URL("../../examples/rules.json", import.meta.url), "utf8"),
) as RulesDocument;

const doc = (rules: unknown[], extra: Record<string, unknown> = {}) =>
  ({ version: 1, rules, ...extra }) as RulesDocument;

describe("explain", () => {
  const policy = rulesPolicy(example);

  it("names the rule that decided, its reason, and every rule that matched", () => {
    expect(policy.explain({ name: "read_file", args: { path: "a/b/.env.local" } })).toEqual({
      decision: "DENY",
      rule: "no-secrets",
      reason: "secrets stay local",
      matched: ["no-secrets"],
    });
    // Read-only and a secret: both match, the deny wins whatever the order.
    expect(
      policy.explain({
        name: "read_file",
        args: { path: ".env" },
        annotations: { readOnlyHint: true },
      }),
    ).toMatchObject({ decision: "DENY", rule: "no-secrets", matched: ["no-secrets", "reads"] });
    expect(
      policy.explain({
        name: "read_file",
        args: { path: "src/app.ts" },
        annotations: { readOnlyHint: true },
      }),
    ).toEqual({
      decision: "ALLOW",
      rule: "reads",
      reason: "rule reads (allow)",
      matched: ["reads"],
    });
  });

  it("falls back to the document's default, and to deny when it gives none", () => {
    expect(policy.explain({ name: "delete_repo", args: {} })).toEqual({
      decision: "NEEDS_APPROVAL",
      reason: "no rule matched (default ask)",
      matched: [],
    });
    const strict = rulesPolicy(doc([{ id: "a", effect: "allow", tool: "x" }]));
    expect(strict.explain({ name: "y", args: {} }).decision).toBe("DENY");
    const open = rulesPolicy(doc([{ id: "a", effect: "deny", tool: "x" }], { default: "allow" }));
    expect(open.explain({ name: "y", args: {} }).decision).toBe("ALLOW");
  });

  it("a missing arg fails closed: deny and ask rules match it, allow rules do not", () => {
    expect(policy.explain({ name: "read_file", args: {} })).toMatchObject({
      decision: "DENY",
      rule: "no-secrets",
    });
    // A number where the glob wants a string: the deny still matches.
    expect(policy.explain({ name: "read_file", args: { path: 7 } }).decision).toBe("DENY");
    // A refund without an amount: "big-refunds" (ask) matches, "refunds" (allow) does not.
    expect(policy.explain({ name: "refund", args: {} })).toMatchObject({
      decision: "NEEDS_APPROVAL",
      rule: "big-refunds",
      matched: ["big-refunds"],
    });
    expect(policy.explain({ name: "refund", args: { amountEur: "50" } }).matched).toEqual([
      "big-refunds",
    ]);
  });

  it("history: an allow with maxPerRun matches only while the tool ran fewer times", () => {
    const call = { name: "refund", args: { amountEur: 10 } };
    expect(policy.explain(call, { executed: ["refund", "refund"] }).decision).toBe("ALLOW");
    expect(policy.explain(call, { executed: ["refund", "x", "refund", "refund"] })).toEqual({
      decision: "NEEDS_APPROVAL",
      reason: "no rule matched (default ask)",
      matched: [],
    });
  });

  it("a tool that asks for approval itself turns an allow into an ask", () => {
    const call = { name: "refund", args: { amountEur: 10 } };
    expect(policy.explain(call, { needsApproval: true })).toMatchObject({
      decision: "NEEDS_APPROVAL",
      rule: "refunds",
    });
    // A deny stays a deny.
    expect(
      policy.explain({ name: "read_file", args: { path: ".env" } }, { needsApproval: true })
        .decision,
    ).toBe("DENY");
  });

  it("matchers: tool globs and lists, JSON pointers, equals, in, prefix, exists, annotations defaults", () => {
    const p = rulesPolicy(
      doc([
        {
          id: "fs",
          effect: "allow",
          tool: ["fs_*", "list"],
          args: { "/opts/mode": { in: ["r", "ro"] } },
        },
        { id: "tmp", effect: "deny", tool: "fs_write", args: { path: { prefix: "/etc/" } } },
        { id: "forced", effect: "deny", tool: "list", args: { force: { equals: true } } },
        { id: "dry", effect: "ask", args: { dryRun: { exists: false } }, tool: "deploy" },
        { id: "destructive", effect: "ask", annotations: { destructiveHint: true } },
      ]),
    );
    const ro = { readOnlyHint: true };
    expect(
      p.explain({ name: "fs_read", args: { opts: { mode: "ro" } }, annotations: ro }).decision,
    ).toBe("ALLOW");
    expect(
      p.explain({ name: "fs_read", args: { opts: { mode: "rw" } }, annotations: ro }).decision,
    ).toBe("DENY");
    expect(
      p.explain({
        name: "fs_write",
        args: { path: "/etc/passwd", opts: { mode: "r" } },
        annotations: ro,
      }).rule,
    ).toBe("tmp");
    expect(
      p.explain({ name: "list", args: { force: true, opts: { mode: "r" } }, annotations: ro }).rule,
    ).toBe("forced");
    expect(
      p.explain({ name: "list", args: { force: false, opts: { mode: "r" } }, annotations: ro })
        .decision,
    ).toBe("ALLOW");
    // A tool that gives no hints is destructive (the MCP default).
    expect(p.explain({ name: "list", args: { force: false, opts: { mode: "r" } } }).rule).toBe(
      "destructive",
    );
    expect(p.explain({ name: "deploy", args: {}, annotations: ro }).rule).toBe("dry");
    expect(p.explain({ name: "deploy", args: { dryRun: true }, annotations: ro }).decision).toBe(
      "DENY",
    );
  });

  it("globs: * stays in a segment, ** crosses them, ? is one character", () => {
    const p = rulesPolicy(
      doc([
        { id: "a", effect: "allow", args: { path: { glob: "src/*.ts" } } },
        { id: "b", effect: "allow", args: { path: { glob: "docs/**" } } },
        { id: "c", effect: "allow", args: { path: { glob: "v?.txt" } } },
      ]),
    );
    const decide = (path: string) => p.explain({ name: "t", args: { path } }).matched;
    expect(decide("src/a.ts")).toEqual(["a"]);
    expect(decide("src/x/a.ts")).toEqual([]);
    expect(decide("docs/a/b.md")).toEqual(["b"]);
    expect(decide("v1.txt")).toEqual(["c"]);
    expect(decide("v12.txt")).toEqual([]);
    expect(decide("src/a.tsx")).toEqual([]);
  });
});

describe("load errors fail closed", () => {
  const bad: [string, unknown, RegExp][] = [
    [
      "an unknown rule key, with a did-you-mean",
      doc([{ id: "r", effect: "deny", tools: "x" }]),
      /rule "r" \(\/rules\/0\): unknown option `tools`; did you mean `tool`\?/,
    ],
    [
      "an unknown document key",
      { version: 1, rules: [], defaults: "deny" },
      /unknown option `defaults`; did you mean `default`\?/,
    ],
    [
      "an unknown matcher key",
      doc([{ id: "r", effect: "deny", args: { n: { gtt: 1 } } }]),
      /rule "r" \(\/rules\/0\/args\/n\): unknown option `gtt`; did you mean `gt`\?/,
    ],
    [
      "an unknown hint",
      doc([{ id: "r", effect: "deny", annotations: { readonlyHint: true } }]),
      /did you mean `readOnlyHint`\?/,
    ],
    ["a wrong version", { version: 2, rules: [] }, /\/version must be 1/],
    [
      "a wrong effect",
      doc([{ id: "r", effect: "block" }]),
      /rule "r" \(\/rules\/0\/effect\): must be "allow", "ask" or "deny"/,
    ],
    [
      "a wrong type",
      doc([{ id: "r", effect: "deny", args: { n: { gt: "5" } } }]),
      /rule "r" \(\/rules\/0\/args\/n\/gt\): must be a number, got "5"/,
    ],
    [
      "a missing id",
      doc([{ effect: "deny" }]),
      /rule 0 \(\/rules\/0\/id\): must be a non-empty string/,
    ],
    [
      "duplicate ids",
      doc([
        { id: "r", effect: "deny", tool: "a" },
        { id: "r", effect: "deny", tool: "b" },
      ]),
      /rule "r" \(\/rules\/1\/id\): the id is used twice/,
    ],
    [
      "a bad glob",
      doc([{ id: "r", effect: "deny", args: { p: { glob: "a**" } } }]),
      /rule "r" \(\/rules\/0\/args\/p\/glob\): bad glob "a\*\*"/,
    ],
    [
      "a glob with a class",
      doc([{ id: "r", effect: "deny", tool: "[ab]" }]),
      /\/rules\/0\/tool\): bad glob/,
    ],
    [
      "bounds no number meets",
      doc([{ id: "r", effect: "deny", args: { n: { gt: 10, lt: 5 } } }]),
      /no call can match: the numeric bounds/,
    ],
    [
      "touching open bounds",
      doc([{ id: "r", effect: "deny", args: { n: { gt: 5, lte: 5 } } }]),
      /no call can match/,
    ],
    [
      "an empty in",
      doc([{ id: "r", effect: "deny", args: { n: { in: [] } } }]),
      /\/in\): is empty: no call can match/,
    ],
    [
      "equals outside in",
      doc([{ id: "r", effect: "deny", args: { n: { equals: 1, in: [2] } } }]),
      /no call can match/,
    ],
    [
      "a string and a number test",
      doc([{ id: "r", effect: "deny", args: { n: { prefix: "a", gt: 1 } } }]),
      /no call can match/,
    ],
    [
      "exists false with a test",
      doc([{ id: "r", effect: "deny", args: { n: { exists: false, equals: 1 } } }]),
      /no call can match/,
    ],
    [
      "read-only and destructive",
      doc([
        { id: "r", effect: "deny", annotations: { readOnlyHint: true, destructiveHint: true } },
      ]),
      /a read-only tool is never destructive/,
    ],
    ["an empty tool list", doc([{ id: "r", effect: "deny", tool: [] }]), /non-empty list/],
    [
      "history on a deny",
      doc([{ id: "r", effect: "deny", history: { maxPerRun: 2 } }]),
      /\/history\): is for allow rules only/,
    ],
    [
      "a zero cap",
      doc([{ id: "r", effect: "allow", history: { maxPerRun: 0 } }]),
      /maxPerRun\): must be a whole number of at least 1/,
    ],
    [
      "an allow a deny of the same tool shadows",
      doc([
        { id: "open", effect: "allow", tool: "rm", args: { p: { prefix: "/tmp" } } },
        { id: "shut", effect: "deny", tool: "rm" },
      ]),
      /rule "open" \(\/rules\/0\) can never decide: rule "shut" \(deny\)/,
    ],
    [
      "an allow a deny with no matchers shadows",
      doc([
        { id: "open", effect: "allow", tool: "x" },
        { id: "all", effect: "deny" },
      ]),
      /rule "open" .* rule "all"/,
    ],
    [
      "an allow a glob deny shadows",
      doc([
        { id: "open", effect: "allow", tool: "fs_read" },
        { id: "fs", effect: "ask", tool: "fs_*" },
      ]),
      /rule "open" .* rule "fs" \(ask\)/,
    ],
    [
      "an allow a deny with the same arg test shadows",
      doc([
        { id: "open", effect: "allow", tool: "r", args: { p: { glob: "**" }, q: { gt: 1 } } },
        { id: "shut", effect: "deny", args: { p: { glob: "**" } } },
      ]),
      /rule "open" .* rule "shut"/,
    ],
    ["a null", doc([{ id: "r", effect: "deny", reason: null }]), /`reason` is null/],
    ["not an object", "rules", /the document: expected an options object/],
  ];
  it.each(bad)("%s", (_, document, message) => {
    expect(() => rulesPolicy(document as RulesDocument)).toThrow(TypeError);
    expect(() => rulesPolicy(document as RulesDocument)).toThrow(message);
  });

  it("a stricter rule that covers only part of an allow is not a shadow", () => {
    expect(() =>
      rulesPolicy(
        doc([
          { id: "open", effect: "allow", tool: "rm" },
          { id: "shut", effect: "deny", tool: "rm", args: { p: { prefix: "/etc" } } },
          { id: "capped", effect: "deny", tool: "fs_*", annotations: { readOnlyHint: false } },
          { id: "fs", effect: "allow", tool: "fs_*" },
        ]),
      ),
    ).not.toThrow();
  });
});

describe("in a run", () => {
  it("a denied call never executes, an ask pauses, an allow runs, a capped allow asks past its cap", async () => {
    const ran: string[] = [];
    const readFile = tool({
      name: "read_file",
      description: "read",
      input: z.object({ path: z.string() }),
      annotations: { readOnlyHint: true },
      execute: ({ path }) => {
        ran.push(`read ${path}`);
        return "ok";
      },
    });
    const refund = tool({
      name: "refund",
      description: "refund",
      input: z.object({ amountEur: z.number() }),
      execute: ({ amountEur }) => {
        ran.push(`refund ${amountEur}`);
        return "ok";
      },
    });
    const policy = rulesPolicy(example);
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "refund", args: { amountEur: 1 } },
            { name: "refund", args: { amountEur: 2 } },
          ],
        },
        {
          toolCalls: [
            { name: "refund", args: { amountEur: 3 } },
            { name: "read_file", args: { path: "x/.env" } },
          ],
        },
        {
          toolCalls: [
            { name: "refund", args: { amountEur: 4 } },
            { name: "read_file", args: { path: "ok.md" } },
          ],
        },
        { text: "done" },
      ]),
      tools: [readFile, refund],
      policy,
    });
    const result = await loop.run("go");
    expect(ran).toEqual(["refund 1", "refund 2", "refund 3", "read ok.md"]);
    expect(result.steps[1]!.calls.map((c) => [c.verdict, c.reason])).toEqual([
      ["allow", "rule refunds (allow)"],
      ["deny", "secrets stay local"],
    ]);
    // The fourth refund: "refunds" has run its 3, nothing else matches, the default asks.
    expect(result.status).toBe("needs_approval");
    expect(result.pending?.map((p) => [p.toolName, p.args, p.reason])).toEqual([
      ["refund", { amountEur: 4 }, "no rule matched (default ask)"],
    ]);
  });

  it("decideToolCall answers what explain answers", () => {
    const policy = rulesPolicy(example);
    const call = { id: "1", name: "refund", args: { amountEur: 500 }, rawArgs: "{}" };
    const refund = tool({
      name: "refund",
      description: "r",
      input: z.object({}),
      execute: () => 1,
    });
    expect(
      policy.decideToolCall({
        call,
        tool: refund,
        needsApproval: false,
        step: 0,
        deps: undefined,
        executed: [],
      }),
    ).toEqual({ decision: "NEEDS_APPROVAL", reason: "a refund over 100 EUR needs a human" });
  });
});
