/**
 * The auto model's values (src/testing/schema-sample.ts): `\S` (and `\D`, `\W`) in patterns and
 * `patternProperties`, which it refused before; still valid by construction, still seeded.
 */
import fc from "fast-check";
import { AgentLoop, jsonSchema, tool } from "tollgate";
import { autoProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { SampleProblem, sampleSchema } from "../../src/testing/schema-sample.js";
import { seededRandom } from "../../src/testing/seeded-random.js";

type Schema = Record<string, unknown>;

/** Values for the schema over many seeds, each checked by the core's own validator. */
function expectValidSamples(schema: Schema, seeds = 200): unknown[] {
  const { validate } = jsonSchema(schema)["~standard"];
  const values: unknown[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const value = sampleSchema(schema, seededRandom(seed, "test"));
    expect(validate(value), JSON.stringify(value)).not.toHaveProperty("issues");
    values.push(value);
  }
  return values;
}

describe("patterns with negated escapes", () => {
  it("\\S, \\D and \\W, alone and in classes, give strings the pattern matches", () => {
    for (const pattern of ["^\\S+$", "^\\S{3}-\\D\\W$", "^[\\S]{2,4}$", "^ref:\\S{6}$"]) {
      const values = expectValidSamples({ type: "string", pattern });
      expect(new Set(values).size, pattern).toBeGreaterThan(1);
    }
    // Printable ASCII but what \S matches: the space.
    const spaces = expectValidSamples({ type: "string", pattern: "^[^\\S]$" });
    expect(new Set(spaces)).toEqual(new Set([" "]));
  });
});

describe("patternProperties", () => {
  it("a record of names by pattern: each value matches its pattern's schema, no other key", () => {
    const schema = {
      type: "object",
      minProperties: 1,
      maxProperties: 2,
      patternProperties: { "^x-[a-z]{2,5}$": { type: "integer", minimum: 0, maximum: 9 } },
      additionalProperties: false,
    };
    const values = expectValidSamples(schema) as Schema[];
    expect(values.some((value) => Object.keys(value).length === 2)).toBe(true);
  });

  it("a listed property whose name matches a pattern meets both; a required name may come from a pattern", () => {
    expectValidSamples({
      type: "object",
      required: ["id", "n_1", "n_42"],
      properties: { id: { type: "string", minLength: 2 }, n_1: { type: "number", maximum: 3 } },
      patternProperties: { "^n_\\d+$": { type: "number", minimum: 1 } },
      additionalProperties: false,
    });
  });

  it("beside a record's own keys, names a pattern forbids never appear", () => {
    const values = expectValidSamples({
      type: "object",
      additionalProperties: { type: "string", maxLength: 3 },
      patternProperties: { "^key": { type: "string", minLength: 2 }, "^_": false },
    }) as Schema[];
    for (const value of values)
      expect(Object.keys(value).some((k) => k.startsWith("_"))).toBe(false);
  });

  it("fails closed when no name can be found or a pattern is beyond the cheap subset", () => {
    const sample = (schema: Schema) => () => sampleSchema(schema, seededRandom(1, "test"));
    expect(
      sample({
        type: "object",
        minProperties: 2,
        patternProperties: { "^id$": {} },
        additionalProperties: false,
      }),
    ).toThrow(/"minProperties" 2 cannot be reached: no new name for "patternProperties" \^id\$/);
    expect(
      sample({ type: "object", minProperties: 1, patternProperties: { "^(?=a)\\w+$": {} } }),
    ).toThrow(SampleProblem);
    expect(
      sample({
        type: "object",
        required: ["b"],
        patternProperties: { "^a": {} },
        additionalProperties: false,
      }),
    ).toThrow(/"b" is required but "additionalProperties" is false/);
  });

  it("the auto model calls a tool with such a schema, the same args for the same seed", async () => {
    const tags = tool({
      name: "tag",
      description: "Tags a resource",
      input: jsonSchema({
        type: "object",
        required: ["ref", "labels"],
        properties: {
          ref: { type: "string", pattern: "^res:\\S{4,8}$" },
          labels: {
            type: "object",
            minProperties: 1,
            patternProperties: { "^[a-z]{2,6}$": { type: "string", maxLength: 6 } },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      }),
      execute: () => "tagged",
    });
    const argsOf = async (seed: number) => {
      const result = await new AgentLoop({ provider: autoProvider({ seed }), tools: [tags] }).run(
        "go",
      );
      expect(result.steps[0]!.calls[0]!.verdict).toBe("allow");
      return result.steps[0]!.calls[0]!.args;
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1000, max: 1000 }), async (seed) => {
        expect(await argsOf(seed)).toEqual(await argsOf(seed));
      }),
      { numRuns: 20 },
    );
  });
});
