import fc from "fast-check";
import { AgentLoop, type LoopPolicy, tool } from "tollgate";
import { decisionsOf, scriptedProvider, type TurnReply } from "tollgate/testing";
import {
  arbitraryOfSchema,
  arbitraryTurns,
  SchemaArbitraryError,
} from "tollgate/testing/arbitraries";
import { describe, expect, it } from "vitest";
import { z } from "zod";

// A small toolset of the user's own: one tool with a rich schema, and a destructive one.
const search = tool({
  name: "search",
  input: z.object({
    query: z.string().min(1).max(20),
    kind: z.enum(["file", "note"]),
    limit: z.number().int().min(1).max(10).optional(),
    score: z.number().gt(0).lte(1).optional(),
    tags: z.array(z.string().max(5)).max(3).optional(),
    filter: z.object({ owner: z.email(), since: z.iso.datetime() }).optional(),
  }),
  execute: () => [],
  maxRetries: 20, // scripts send bad args on purpose: the run goes on rather than throwing
});
const remove = tool({
  name: "delete",
  input: z.object({ path: z.string() }),
  execute: () => "deleted",
  maxRetries: 20,
});
const tools = [search, remove];

/** The gate under test: every delete asks a human; the run pauses instead. */
const safe: LoopPolicy = {
  decideToolCall: ({ call }) => (call.name === "delete" ? "NEEDS_APPROVAL" : "ALLOW"),
};
/** A broken gate: asks only for paths that look important. */
const broken: LoopPolicy = {
  decideToolCall: ({ call }) =>
    call.name === "delete" && String((call.args as { path: string }).path).includes("/")
      ? "NEEDS_APPROVAL"
      : "ALLOW",
};

const play = (policy: LoopPolicy, turns: TurnReply[]) =>
  new AgentLoop({ provider: scriptedProvider(turns), tools, policy, maxSteps: 10 }).run("go");

/** The property: no delete runs without a human's approval, whatever the model says. */
const noUnapprovedDelete = (policy: LoopPolicy) =>
  fc.asyncProperty(arbitraryTurns(tools), async (turns) => {
    const result = await play(policy, turns);
    for (const d of decisionsOf(result)) {
      if (d.tool === "delete" && d.ran) expect(d.by).toBe("approval");
    }
  });

describe("arbitraryTurns: property tests over a user's own gate", () => {
  it("a gate that asks for every delete holds, whatever the model says", async () => {
    await fc.assert(noUnapprovedDelete(safe), { numRuns: 200, seed: 1 });
  });

  it("a broken gate is caught: fast-check finds a script in which delete runs unapproved", async () => {
    const details = await fc.check(noUnapprovedDelete(broken), { numRuns: 200, seed: 1 });
    expect(details.failed).toBe(true);
    const [turns] = details.counterexample as [TurnReply[]];
    // Shrunk to the point: a step that calls delete with a path without "/", then the answer.
    const deletes = turns.flatMap((t) => t.toolCalls ?? []).filter((c) => c.name === "delete");
    expect(deletes.some((c) => !String((c.args as { path?: unknown }).path).includes("/"))).toBe(
      true,
    );
    expect(turns.at(-1)).toHaveProperty("text");
  });

  it("scripts end with a text answer and, with the odd calls off, every call is valid and allowed", async () => {
    const arb = arbitraryTurns(tools, { unknownTools: false, invalidArgs: false, badJson: false });
    const samples = fc.sample(arb, { numRuns: 100, seed: 3 });
    for (const turns of samples) {
      expect(Object.keys(turns.at(-1)!)).toEqual(["text"]);
      expect(turns.length).toBeLessThanOrEqual(5);
    }
    await fc.assert(
      fc.asyncProperty(arb, async (turns) => {
        const result = await play({}, turns);
        for (const d of decisionsOf(result)) expect([d.tool, d.verdict]).toEqual([d.tool, "allow"]);
      }),
      { numRuns: 150, seed: 4 },
    );
    const calls = samples.flatMap((t) => t.flatMap((s) => s.toolCalls ?? []));
    const args = calls
      .filter((c) => c.name === "search")
      .map((c) => c.args as Record<string, unknown>);
    // Optional properties are sometimes there and sometimes not; nested objects are generated.
    expect(args.some((a) => "limit" in a)).toBe(true);
    expect(args.some((a) => !("limit" in a))).toBe(true);
    expect(args.some((a) => "filter" in a)).toBe(true);
    expect(new Set(args.map((a) => a.kind))).toEqual(new Set(["file", "note"]));
  });

  it("by default, scripts also hold unknown tools, args the schema refuses, and args that are not JSON", async () => {
    const verdicts = new Set<string>();
    for (const turns of fc.sample(arbitraryTurns(tools), { numRuns: 60, seed: 5 })) {
      for (const d of decisionsOf(await play({}, turns))) verdicts.add(d.verdict);
    }
    expect([...verdicts].sort()).toEqual(["allow", "invalid", "unavailable"]);
    const bad = fc
      .sample(arbitraryTurns(tools), { numRuns: 200, seed: 6 })
      .flatMap((t) => t.flatMap((s) => s.toolCalls ?? []))
      .filter((c) => typeof c.args === "string" && !parses(c.args));
    expect(bad.length).toBeGreaterThan(0);
  });

  it("fails closed on bad input: not tools, unknown options, a schema keyword it cannot generate", () => {
    expect(() => arbitraryTurns(undefined as never)).toThrow(/give your tools/);
    expect(() => arbitraryTurns([{ name: "x" }] as never)).toThrow(/tools\[0\] is not a tool/);
    expect(() => arbitraryTurns(tools, { maxStep: 2 } as never)).toThrow(
      /unknown option "maxStep"/,
    );
    expect(() => arbitraryTurns(tools, { maxCalls: 0 })).toThrow(
      /maxCalls must be an integer of at least 1/,
    );
    const refs = {
      name: "r",
      inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/a" } } },
    };
    expect(() => arbitraryTurns([refs])).toThrow(SchemaArbitraryError);
    expect(() => arbitraryTurns([refs])).toThrow(
      /tool r: inputSchema\.properties\.a: cannot generate values for the keyword "\$ref"/,
    );
    expect(() => arbitraryOfSchema({ type: "string", format: "color" })).toThrow(
      /cannot generate format "color"/,
    );
    expect(() => arbitraryOfSchema({ type: "integer", minimum: 5, maximum: 4 })).toThrow(
      /no integer fits/,
    );
  });
});

describe("arbitraryOfSchema", () => {
  it("generates values within each keyword's bounds", () => {
    const schema = {
      type: "object",
      properties: {
        n: { type: "integer", minimum: 3, exclusiveMaximum: 6 },
        m: { type: "number", multipleOf: 0.5, minimum: 0, maximum: 2 },
        s: { type: "string", pattern: "^[a-c]{2}$" },
        id: { type: "string", format: "uuid" },
        list: {
          type: "array",
          items: { enum: [1, 2, 3] },
          minItems: 1,
          maxItems: 3,
          uniqueItems: true,
        },
        maybe: { type: ["string", "null"], maxLength: 2 },
        either: { anyOf: [{ const: "x" }, { type: "boolean" }] },
      },
      required: ["n", "m", "s", "id", "list", "maybe", "either"],
    };
    for (const v of fc.sample(arbitraryOfSchema(schema), { numRuns: 200, seed: 8 }) as Record<
      string,
      unknown
    >[]) {
      expect(v.n).toSatisfy((n: number) => Number.isInteger(n) && n >= 3 && n < 6);
      expect([0, 0.5, 1, 1.5, 2]).toContain(v.m);
      expect(v.s).toMatch(/^[a-c]{2}$/);
      expect(v.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
      const list = v.list as number[];
      expect(new Set(list).size).toBe(list.length);
      expect(list.length).toBeGreaterThanOrEqual(1);
      expect(v.maybe === null || (typeof v.maybe === "string" && v.maybe.length <= 2)).toBe(true);
      expect(v.either === "x" || typeof v.either === "boolean").toBe(true);
    }
  });
});

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("arbitraryTurns on an empty toolset", () => {
  it("is a TypeError: scripts of unknown tools only would test nothing of the gate", () => {
    expect(() => arbitraryTurns([])).toThrow(/arbitraryTurns: the toolset is empty/);
    expect(() => arbitraryTurns([], { unknownTools: false })).toThrow(TypeError);
  });
});
