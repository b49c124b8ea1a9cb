import { describe, expect, it } from "vitest";
import { jsonSchema } from "../../src/tools/json-schema.js";
import { formatIssues, type ValidationResult } from "../../src/tools/schema.js";

/** Validates synchronously (the built-in validator never returns a promise) and formats the outcome. */
function check(schema: Record<string, unknown>, value: unknown): string {
  const result = jsonSchema(schema)["~standard"].validate(value) as ValidationResult<unknown>;
  return result.issues ? formatIssues(result.issues) : "ok";
}

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("jsonSchema() validates every keyword of the draft", () => {
  it.each([
    {
      keyword: "$ref",
      schema: object(
        { n: { $ref: "#/$defs/positive" } },
        { $defs: { positive: { type: "integer", minimum: 1 } } },
      ),
      bad: { n: 0 },
      message: /n: expected >= 1/,
      good: { n: 3 },
    },
    {
      keyword: "not",
      schema: object({ user: { type: "string", not: { const: "root" } } }),
      bad: { user: "root" },
      message: /user: must not match/,
      good: { user: "bob" },
    },
    {
      keyword: "if/then",
      schema: object(
        { kind: { enum: ["card", "cash"] }, card: { type: "string" } },
        {
          if: { properties: { kind: { const: "card" } } },
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
          then: { required: ["card"] },
        },
      ),
      bad: { kind: "card" },
      message: /card: required/,
      good: { kind: "card", card: "4242" },
    },
    {
      keyword: "if/else",
      schema: object(
        { kind: { enum: ["card", "cash"] }, card: { type: "string" } },
        { if: { properties: { kind: { const: "card" } } }, else: { not: { required: ["card"] } } },
      ),
      bad: { kind: "cash", card: "4242" },
      message: /must not match/,
      good: { kind: "cash" },
    },
    {
      keyword: "patternProperties",
      schema: { type: "object", patternProperties: { "^n_": { type: "number" } } },
      bad: { n_count: "three" },
      message: /n_count: expected number, received string/,
      good: { n_count: 3, other: "x" },
    },
    {
      keyword: "dependentRequired",
      schema: object(
        { card: { type: "string" }, cvc: { type: "string" } },
        { dependentRequired: { card: ["cvc"] } },
      ),
      bad: { card: "4242" },
      message: /cvc: required when "card" is present/,
      good: { card: "4242", cvc: "123" },
    },
    {
      keyword: "propertyNames",
      schema: { type: "object", propertyNames: { pattern: "^[a-z]+$" } },
      bad: { Bad: 1 },
      message: /property name "Bad" is not allowed/,
      good: { good: 1 },
    },
    {
      keyword: "prefixItems",
      schema: object({
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }] },
      }),
      bad: { point: ["north", 1] },
      message: /point\[0\]: expected number, received string; point\[1\]: expected string/,
      good: { point: [1, "north"] },
    },
    {
      keyword: "contains",
      schema: object({ tags: { type: "array", contains: { const: "urgent" } } }),
      bad: { tags: ["low"] },
      message: /tags: expected an item that matches `contains`/,
      good: { tags: ["low", "urgent"] },
    },
    {
      keyword: "uniqueItems",
      schema: object({ ids: { type: "array", uniqueItems: true } }),
      bad: { ids: [1, 2, 1] },
      message: /ids: expected unique items/,
      good: { ids: [1, 2, 3] },
    },
    {
      keyword: "multipleOf",
      schema: object({ cents: { type: "number", multipleOf: 0.01 } }),
      bad: { cents: 0.005 },
      message: /cents: expected a multiple of 0.01/,
      good: { cents: 0.07 },
    },
    {
      keyword: "format",
      schema: object({ email: { type: "string", format: "email" } }),
      bad: { email: "not an address" },
      message: /email: expected format "email"/,
      good: { email: "ada@example.com" },
    },
    {
      keyword: "oneOf (exactly one, not anyOf)",
      schema: object({ n: { oneOf: [{ type: "integer" }, { type: "number", minimum: 0 }] } }),
      bad: { n: 5 },
      message: /n: matches 2 of the `oneOf` shapes; expected exactly one/,
      good: { n: 1.5 },
    },
    {
      keyword: "draft-04 exclusiveMinimum: true",
      schema: {
        $schema: "http://json-schema.org/draft-04/schema#",
        ...object({ n: { type: "number", minimum: 0, exclusiveMinimum: true } }),
      },
      bad: { n: 0 },
      message: /n: expected > 0/,
      good: { n: 0.5 },
    },
  ])("$keyword: violating args are rejected, valid args pass", ({ schema, bad, message, good }) => {
    expect(check(schema, bad)).toMatch(message);
    expect(check(schema, good)).toBe("ok");
  });

  it("reports every error, with paths through $ref, arrays and nested objects", () => {
    const schema = object(
      { items: { type: "array", items: { $ref: "#/$defs/item" } }, note: { type: "string" } },
      {
        required: ["items", "when"],
        additionalProperties: false,
        $defs: {
          item: object(
            { name: { type: "string" }, qty: { type: "integer" } },
            { required: ["name"] },
          ),
        },
      },
    );
    expect(check(schema, { items: [{ name: 1, qty: 1.5 }, {}], note: 3, extra: true })).toBe(
      [
        "when: required",
        "items[0].name: expected string, received number",
        "items[0].qty: expected integer, received number",
        "items[1].name: required",
        "note: expected string, received number",
        "extra: unknown property",
      ].join("; "),
    );
  });

  it("says what the common keywords expected", () => {
    const schema = object({
      code: { type: "string", pattern: "^[A-Z]{3}$", minLength: 3, maxLength: 3 },
      n: { type: "number", exclusiveMinimum: 0, maximum: 10 },
      tags: { type: "array", minItems: 1, maxItems: 2 },
      kind: { enum: ["a", "b"] },
      v: { const: 1 },
      any: { anyOf: [{ type: "string" }, { type: "number" }] },
    });
    expect(check(schema, { code: "oslo", n: 0, tags: [], kind: "c", v: 2, any: null })).toBe(
      [
        "code: expected at most 3 characters",
        "code: expected to match /^[A-Z]{3}$/",
        "n: expected > 0",
        "tags: expected at least 1 items",
        'kind: expected one of "a", "b"',
        "v: expected 1",
        "any: matches none of the allowed shapes (`anyOf`)",
        "any: expected string, received null",
        "any: expected number, received null",
      ].join("; "),
    );
    expect(check(schema, { n: 11, tags: [1, 2, 3] })).toBe(
      "n: expected <= 10; tags: expected at most 2 items",
    );
  });

  it("picks the draft from $schema and defaults to 2020-12", () => {
    // Draft 7: `$ref` overrides its siblings; 2020-12: they apply too.
    const refWithSibling = {
      properties: { n: { $ref: "#/$defs/n", maximum: 5 } },
      $defs: { n: { type: "number" } },
    };
    expect(check({ type: "object", ...refWithSibling }, { n: 9 })).toBe("n: expected <= 5");
    expect(
      check(
        { $schema: "http://json-schema.org/draft-07/schema#", type: "object", ...refWithSibling },
        { n: 9 },
      ),
    ).toBe("ok");
    expect(() => jsonSchema({ $schema: "https://example.com/my-dialect", type: "object" })).toThrow(
      /unknown \$schema "https:\/\/example.com\/my-dialect"/,
    );
  });

  it("compiles once: validating never reads the schema object again", () => {
    let reads = 0;
    const schema = {
      type: "object",
      get properties() {
        reads++;
        return { n: { type: "number" } };
      },
    };
    const input = jsonSchema(schema);
    const readsAtCompile = reads;
    for (let i = 0; i < 3; i++) input["~standard"].validate({ n: "x" });
    expect(reads).toBe(readsAtCompile);
  });

  it("turns a value the validator cannot handle into an issue, not a crash", () => {
    const schema = object({ a: { type: "string" } }, { additionalProperties: false });
    expect(check(schema, JSON.parse('{"\\ud800":1}'))).toMatch(/cannot be checked/);
  });
});

describe("jsonSchema() rejects a schema the validator cannot use, when it is made", () => {
  it.each([
    [{ type: 12 }, /type: expected string or array, received number/],
    [{ type: "text" }, /type: expected one of "array", "boolean", .*"string"/],
    [{ type: "object", required: "x" }, /required: expected array, received string/],
    [
      { type: "object", properties: { a: { type: "string", pattern: "([a-z" } } },
      /properties\.a\.pattern: not a valid regular expression/,
    ],
    [
      { type: "object", patternProperties: { "(": { type: "string" } } },
      /patternProperties\.\(: not a valid regular expression/,
    ],
    [
      { type: "object", properties: { a: { minLength: -1 } } },
      /properties\.a\.minLength: expected >= 0/,
    ],
    [{ type: "object", properties: { a: 5 } }, /properties\.a: expected object or boolean/],
    [{ anyOf: [] }, /anyOf: expected at least 1 items/],
    [{ exclusiveMinimum: true }, /exclusiveMinimum: expected number, received boolean/],
    [
      { $schema: "http://json-schema.org/draft-04/schema#", exclusiveMinimum: 0 },
      /exclusiveMinimum: expected boolean, received number/,
    ],
  ])("%j", (schema, message) => {
    expect(() => jsonSchema(schema)).toThrow(TypeError);
    expect(() => jsonSchema(schema)).toThrow(message);
  });

  it("an unresolvable $ref, local or remote (nothing is fetched)", () => {
    expect(() =>
      jsonSchema({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }),
    ).toThrow(/\$ref "#\/\$defs\/missing" .*resolve/);
    expect(() => jsonSchema({ $ref: "https://example.com/schemas/order.json" })).toThrow(
      /\$ref "https:\/\/example.com\/schemas\/order.json"/,
    );
  });

  it("$dynamicRef, which the validator does not support", () => {
    expect(() =>
      jsonSchema({ type: "object", properties: { a: { $dynamicRef: "#node" } } }),
    ).toThrow(/\$dynamicRef.*\$ref/);
  });

  it("a schema that is not JSON data", () => {
    const circular: Record<string, unknown> = { type: "object" };
    circular.properties = { self: circular };
    expect(() => jsonSchema(circular)).toThrow(TypeError);
    expect(() => jsonSchema([] as never)).toThrow(/JSON Schema object/);
  });

  it("does not check a schema given with its own validator (its dialect is the validator's business)", () => {
    const openApi = { type: "object", properties: { n: { minimum: 0, exclusiveMinimum: true } } };
    expect(() => jsonSchema(openApi, (value) => ({ value }))).not.toThrow();
  });
});

describe("jsonSchema() refuses a near-miss keyword, which a validator would silently ignore", () => {
  it("names the typo, where it is, and the keyword meant", () => {
    const typo = {
      type: "object",
      properties: { a: { type: "string", maxLenght: 3 } },
      requried: ["a"],
    };
    expect(() => jsonSchema(typo)).toThrow(
      /properties\.a\.maxLenght: unknown keyword `maxLenght`; did you mean `maxLength`\?.*requried: unknown keyword `requried`; did you mean `required`\?/,
    );
    expect(() =>
      jsonSchema({ type: "object", anyOf: [{ properties: { n: { minimun: 1 } } }] }),
    ).toThrow(/anyOf\[0\]\.properties\.n\.minimun: .*did you mean `minimum`\?/);
  });

  it("leaves annotations and extensions alone", () => {
    const annotated = {
      type: "object",
      properties: {
        a: {
          type: "string",
          example: "x",
          nullable: true,
          "x-order": 1,
          title: "A",
          examples: ["y"],
        },
      },
      "x-vendor": { anything: true },
    };
    expect(() => jsonSchema(annotated)).not.toThrow();
  });
});
