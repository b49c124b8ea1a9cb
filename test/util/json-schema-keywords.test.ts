/**
 * The JSON Schema keywords, named once (src/util/json-schema-keywords.ts), and the places that
 * derive their lists from them. Where two lists disagreed, the case says which keyword and
 * which meaning was kept.
 */
import fc from "fast-check";
import { jsonSchema } from "tollgate";
import { arbitraryOfSchema } from "tollgate/testing/arbitraries";
import { describe, expect, it } from "vitest";
import { sampleSchema } from "../../src/testing/schema-sample.js";
import { seededRandom } from "../../src/testing/seeded-random.js";
import {
  APPLICATORS,
  KNOWN_KEYWORDS,
  NON_CONSTRAINING,
  ONE_SUBSCHEMA,
  SUBSCHEMA_LIST,
  SUBSCHEMA_MAP,
  UNLISTED_PROPERTY_APPLICATORS,
} from "../../src/util/json-schema-keywords.js";

const validate = (schema: Record<string, unknown>, value: unknown) =>
  jsonSchema(schema)["~standard"].validate(value) as { issues?: { message: string }[] };

describe("the keyword groups", () => {
  it("hold each applicator by its form, and every group's keywords are known", () => {
    expect(new Set(ONE_SUBSCHEMA)).toEqual(
      new Set([
        ...["not", "if", "then", "else", "contains", "propertyNames", "items"],
        ...["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"],
      ]),
    );
    expect(new Set(SUBSCHEMA_LIST)).toEqual(
      new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]),
    );
    expect(new Set(SUBSCHEMA_MAP)).toEqual(
      new Set([
        ...["properties", "patternProperties", "dependentSchemas", "dependencies"],
        ...["$defs", "definitions"],
      ]),
    );
    expect(UNLISTED_PROPERTY_APPLICATORS).toEqual([
      "additionalProperties",
      "unevaluatedProperties",
    ]);
    for (const keyword of [...Object.keys(APPLICATORS), ...NON_CONSTRAINING]) {
      expect(KNOWN_KEYWORDS.has(keyword)).toBe(true);
    }
    expect(KNOWN_KEYWORDS.size).toBe(70);
  });

  it("a near miss is named after the first keyword of the groups' order (`onyOf` → anyOf)", () => {
    expect(() => jsonSchema({ type: "object", onyOf: [] })).toThrow(/did you mean `anyOf`\?/);
    expect(() => jsonSchema({ type: "object", maxLenght: 3 })).toThrow(/did you mean `maxLength`/);
  });

  it("the meta-schema checks each applicator by its form, and the four that differ by theirs", () => {
    expect(() => jsonSchema({ not: [{}] })).toThrow(/not: /);
    expect(() => jsonSchema({ allOf: {} })).toThrow(/allOf: /);
    expect(() => jsonSchema({ allOf: [] })).toThrow(/allOf: /);
    expect(() => jsonSchema({ properties: [] })).toThrow(/properties: /);
    expect(() => jsonSchema({ prefixItems: [] })).not.toThrow();
    expect(() =>
      jsonSchema({ $schema: "http://json-schema.org/draft-07/schema#", items: [{}, true] }),
    ).not.toThrow();
    expect(() => jsonSchema({ patternProperties: { "(": {} } })).toThrow(/patternProperties/);
    expect(() => jsonSchema({ dependencies: { a: ["b"], c: { required: ["d"] } } })).not.toThrow();
    expect(() => jsonSchema({ dependencies: { a: 5 } })).toThrow(/dependencies/);
  });
});

describe("where the lists disagreed", () => {
  const draft7 = "http://json-schema.org/draft-07/schema#";

  it("`dependencies`: the validator read it as names to subschemas, the typo check skipped it; now both read it so", () => {
    // A typo inside a draft-7 dependency's subschema relaxed the check silently; it is refused now.
    expect(() =>
      jsonSchema({
        $schema: draft7,
        type: "object",
        dependencies: { card: { properties: { cvc: { type: "string", maxLenght: 4 } } } },
      }),
    ).toThrow(/dependencies\.card\.properties\.cvc\.maxLenght: unknown keyword .*`maxLength`/);
    // A list of names is no subschema: nothing to look into.
    expect(() => jsonSchema({ $schema: draft7, dependencies: { card: ["cvc"] } })).not.toThrow();
    // And what it holds is checked: a value without the dependency's field is refused.
    const schema = { $schema: draft7, dependencies: { card: { required: ["cvc"] } } };
    expect(validate(schema, { card: 1 }).issues?.map((issue) => issue.message)).toContain(
      'does not match the schema that applies when "card" is present',
    );
  });

  it("annotations: the sampler refused id, $vocabulary, $recursiveAnchor, contentSchema, xml, externalDocs, propertyOrdering; now it reads past them", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $vocabulary: { "https://json-schema.org/draft/2020-12/vocab/core": true },
      $recursiveAnchor: false,
      type: "object",
      required: ["doc", "pet"],
      propertyOrdering: ["doc", "pet"],
      externalDocs: { url: "https://example.com/docs" },
      properties: {
        doc: { type: "string", contentMediaType: "application/json", contentSchema: {} },
        pet: { type: "string", xml: { name: "animal" }, minLength: 1 },
      },
    };
    for (let seed = 0; seed < 50; seed++) {
      const value = sampleSchema(schema, seededRandom(seed, "annotations"));
      expect(validate(schema, value).issues).toBeUndefined();
    }
  });

  it("annotations: the arbitrary refused $defs, example, nullable, discriminator, strict, $anchor and the rest; now it reads past them", () => {
    const schema = {
      $defs: { unused: { type: "string" } },
      $anchor: "root",
      type: "object",
      strict: true,
      discriminator: { propertyName: "kind" },
      required: ["kind", "note"],
      properties: {
        kind: { type: "string", enum: ["a", "b"], example: "a" },
        note: { type: "string", nullable: true, contentEncoding: "base64", maxLength: 8 },
      },
    };
    for (const value of fc.sample(arbitraryOfSchema(schema), 50)) {
      expect(validate(schema, value).issues).toBeUndefined();
    }
  });
});
