import { jsonSchema, type StandardSchema, tool } from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";

/**
 * Issue 24, section 5 (honest errors): an optional object is not a tool's input.
 */

describe("an optional or nullable object as a tool's input is a TypeError at tool()", () => {
  const object4 = () => z.object({ city: z.string() });
  const object3 = () => z3.object({ city: z3.string() });
  it.each([
    ["zod 4 .optional()", object4().optional(), ".optional()"],
    ["zod 4 .nullable()", object4().nullable(), ".nullable()"],
    ["zod 4 .nullish()", object4().nullish(), ".nullish()"],
    ["zod 4 .optional().describe()", object4().optional().describe("args"), ".optional()"],
    ["zod 3 .optional()", object3().optional(), ".optional()"],
    ["zod 3 .nullable()", object3().nullable(), ".nullable()"],
    ["zod 3 .nullish()", object3().nullish(), ".nullish()"],
  ])("%s: says to drop the wrapper and make the fields optional", (_, input, wrapper) => {
    const make = () => tool({ name: "t", input: input as StandardSchema, execute: () => "" });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      `tool "t": \`input\` is wrapped in ${wrapper}, but a model always sends its args as one JSON object (never none, never null). Instead, drop ${wrapper} and make the fields optional: z.object({ city: z.string().optional() })`,
    );
  });

  it.each([
    ['type: ["object", "null"]', { type: ["object", "null"], properties: {} }],
    ["anyOf with a null branch", { anyOf: [{ type: "object", properties: {} }, { type: "null" }] }],
    ["oneOf with a null branch", { oneOf: [{ type: "null" }, { type: "object" }] }],
  ])("jsonSchema with %s: says to give type object alone", (_, schema) => {
    const make = () => tool({ name: "t", input: jsonSchema(schema), execute: () => "" });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      'tool "t": `input` allows null (or nothing) at the top, but a model always sends its args as one JSON object. Instead, give `type: "object"` alone',
    );
  });

  it("a plain object, optional fields and a union in a field still pass", () => {
    for (const input of [
      z.object({ city: z.string().optional() }),
      z3.object({ city: z3.string().nullish() }),
      z.object({ action: z.union([z.object({ a: z.string() }), z.null()]) }),
      jsonSchema({ type: "object", properties: { a: { type: ["string", "null"] } } }),
    ]) {
      expect(() => tool({ name: "t", input, execute: () => "" })).not.toThrow();
    }
  });
});
