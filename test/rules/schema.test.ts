import { readFileSync } from "node:fs";
import { Validator } from "@cfworker/json-schema";
import { type RulesDocument, rulesPolicy } from "tollgate/rules";
import { describe, expect, it } from "vitest";

const read = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"));
const schema = read("rules.schema.json");
const valid = (document: unknown) =>
  new Validator(schema, "2020-12", false).validate(document).valid;
const packageJson = read("package.json");

describe("rules.schema.json", () => {
  it("is shipped and exported by the package", () => {
    expect(packageJson.files).toContain("rules.schema.json");
    expect(packageJson.exports["./rules.schema.json"]).toBe("./rules.schema.json");
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("accepts the example rules file, which the loader accepts too", () => {
    const example = read("examples/rules.json");
    expect(valid(example)).toBe(true);
    expect(() => rulesPolicy(example)).not.toThrow();
  });

  const doc = (rules: unknown[], extra: Record<string, unknown> = {}) => ({
    version: 1,
    rules,
    ...extra,
  });
  const bad: [string, unknown][] = [
    ["an unknown document key", { version: 1, rules: [], defaults: "deny" }],
    ["an unknown rule key", doc([{ id: "r", effect: "deny", tools: "x" }])],
    ["an unknown matcher key", doc([{ id: "r", effect: "deny", args: { n: { gtt: 1 } } }])],
    ["an unknown hint", doc([{ id: "r", effect: "deny", annotations: { readonlyHint: true } }])],
    ["a wrong version", { version: 2, rules: [] }],
    ["no rules", { version: 1 }],
    ["a wrong effect", doc([{ id: "r", effect: "block" }])],
    ["a wrong default", doc([], { default: "maybe" })],
    ["a wrong bound type", doc([{ id: "r", effect: "deny", args: { n: { gt: "5" } } }])],
    ["a missing id", doc([{ effect: "deny" }])],
    ["an empty id", doc([{ id: "", effect: "deny" }])],
    [
      "a glob with ** in a segment",
      doc([{ id: "r", effect: "deny", args: { p: { glob: "a**" } } }]),
    ],
    ["a glob with ***", doc([{ id: "r", effect: "deny", tool: "***" }])],
    ["a glob with a class", doc([{ id: "r", effect: "deny", tool: "[ab]" }])],
    ["an empty glob", doc([{ id: "r", effect: "deny", tool: "" }])],
    ["an empty in", doc([{ id: "r", effect: "deny", args: { n: { in: [] } } }])],
    ["an empty matcher", doc([{ id: "r", effect: "deny", args: { n: {} } }])],
    ["an empty tool list", doc([{ id: "r", effect: "deny", tool: [] }])],
    ["history on a deny", doc([{ id: "r", effect: "deny", history: { maxPerRun: 2 } }])],
    ["a zero cap", doc([{ id: "r", effect: "allow", history: { maxPerRun: 0 } }])],
    ["a fractional cap", doc([{ id: "r", effect: "allow", history: { maxPerRun: 1.5 } }])],
    ["a null reason", doc([{ id: "r", effect: "deny", reason: null }])],
  ];
  it.each(bad)("rejects what the loader rejects: %s", (_, document) => {
    expect(() => rulesPolicy(document as RulesDocument)).toThrow(TypeError);
    expect(valid(document)).toBe(false);
  });

  it("accepts each kind of matcher the loader accepts", () => {
    const document = doc([
      { id: "a", effect: "allow", tool: ["x", "y_*"], args: { "/a/b": { in: [1, "2"] } } },
      { id: "b", effect: "deny", tool: "z", args: { p: { glob: "**/.env*", prefix: "/" } } },
      { id: "c", effect: "ask", tool: "w", args: { n: { gte: 1, lt: 2 }, m: { exists: true } } },
      { id: "d", effect: "allow", annotations: { readOnlyHint: true }, history: { maxPerRun: 2 } },
      { id: "e", effect: "deny", tool: "v", args: { q: { equals: { k: [1] } } }, description: "x" },
    ]);
    expect(valid(document)).toBe(true);
    expect(() => rulesPolicy(document as RulesDocument)).not.toThrow();
  });
});
