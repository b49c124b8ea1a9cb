import { toGeminiSchema } from "tollgate/gemini";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cassette } from "./support/recordings.js";

/** Keywords Gemini's `parameters` schema refuses (they must never reach it). */
const REFUSED = [
  "$schema",
  "$defs",
  "$ref",
  "$id",
  "definitions",
  "additionalProperties",
  "oneOf",
  "allOf",
  "const",
  "not",
];

function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keywordsOf(item, found);
  else if (typeof schema === "object" && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      found.add(key);
      if (key === "properties")
        for (const property of Object.values(value as object)) keywordsOf(property, found);
      else keywordsOf(value, found);
    }
  }
  return found;
}

describe("toGeminiSchema", () => {
  it("inlines $defs and drops additionalProperties in a real recorded tool schema (test_complex_agent_run.yaml final_result)", () => {
    const tools = cassette("openai-chat/test_complex_agent_run.yaml")[0]?.request.parsed_body.tools;
    const finalResult = tools.find((t: any) => t.function.name === "final_result").function
      .parameters;
    expect(finalResult.$defs).toBeDefined();
    expect(toGeminiSchema(finalResult)).toEqual({
      type: "object",
      properties: {
        answers: {
          type: "array",
          items: {
            type: "object",
            properties: { answer: { type: "string" }, label: { type: "string" } },
            required: ["label", "answer"],
          },
        },
      },
      required: ["answers"],
    });
  });

  it("converts what zod v4 emits: $schema, optional, nullable, enums, int bounds, defaults", () => {
    const schema = z.toJSONSchema(
      z.object({
        city: z.string().describe("City name"),
        units: z.enum(["c", "f"]).default("c"),
        tags: z.array(z.string()).nullable(),
        days: z.number().int().min(1).max(7).optional(),
        when: z.iso.datetime(),
        site: z.url(),
        mode: z.literal("fast"),
      }),
    ) as Record<string, unknown>;
    const converted = toGeminiSchema(schema);
    for (const keyword of REFUSED) expect(keywordsOf(converted).has(keyword), keyword).toBe(false);
    expect(converted).toMatchObject({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        units: { type: "string", enum: ["c", "f"], default: "c" },
        tags: { type: "array", items: { type: "string" }, nullable: true },
        days: { type: "integer", minimum: 1, maximum: 7 },
        when: { type: "string", format: "date-time" },
        site: { type: "string" },
        mode: { type: "string", enum: ["fast"] },
      },
    });
    expect((converted.properties as any).site.format).toBeUndefined();
    expect(new Set(converted.required as string[])).toEqual(
      new Set(["city", "units", "tags", "when", "site", "mode"]),
    );
  });

  it("turns oneOf into anyOf, null alternatives into nullable, non-string enums into a description", () => {
    expect(
      toGeminiSchema({
        type: "object",
        properties: {
          id: { oneOf: [{ type: "string" }, { type: "integer" }] },
          maybe: {
            anyOf: [{ type: "string", description: "inner" }, { type: "null" }],
            description: "outer",
          },
          level: { type: "integer", enum: [1, 2, 3] },
          flag: { enum: ["on", null] },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        id: { anyOf: [{ type: "string" }, { type: "integer" }] },
        maybe: { type: "string", description: "outer", nullable: true },
        level: { type: "integer", description: "One of: 1, 2, 3." },
        flag: { type: "string", enum: ["on"], nullable: true },
      },
    });
  });

  it("merges allOf, keeps exclusive bounds as bounds, takes the first example, and tuples become anyOf items", () => {
    expect(
      toGeminiSchema({
        allOf: [
          {
            type: "object",
            properties: { a: { type: "number", exclusiveMinimum: 0, multipleOf: 2 } },
            required: ["a"],
          },
          {
            properties: { b: { type: "string", examples: ["x", "y"], pattern: "^[a-z]+$" } },
            required: ["b", "ghost"],
          },
        ],
        $comment: "dropped",
        properties: {
          pair: {
            type: "array",
            prefixItems: [{ type: "string" }, { type: "number" }],
            uniqueItems: true,
          },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        a: { type: "number", minimum: 0 },
        b: { type: "string", example: "x", pattern: "^[a-z]+$" },
        pair: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
      },
      required: ["a", "b"],
    });
  });

  it("stops at recursive references", () => {
    const tree = {
      $defs: {
        node: {
          type: "object",
          properties: {
            value: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
        },
      },
      $ref: "#/$defs/node",
    };
    expect(toGeminiSchema(tree)).toEqual({
      type: "object",
      properties: {
        value: { type: "string" },
        children: { type: "array", items: { type: "object" } },
      },
    });
  });
});
