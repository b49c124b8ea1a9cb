import { tool } from "tollgate";
import { describe, expect, it } from "vitest";
import * as z3 from "zod/v3";

/**
 * zod-to-json-schema is loaded only when a zod 3 schema is met, synchronously (as tool() is), by
 * `createRequire` from `process.getBuiltinModule`. A runtime without it (workerd, a browser
 * bundle) stands in here as this process with `process.getBuiltinModule` taken away.
 */
describe("zod 3 schemas load zod-to-json-schema on first use", () => {
  const input = z3.object({ city: z3.string() });
  const noop = () => "";

  /** Runs `body` as in a runtime with no `process.getBuiltinModule`. */
  function withoutBuiltinModules(body: () => void): void {
    const process = globalThis.process as { getBuiltinModule?: unknown };
    const original = process.getBuiltinModule;
    process.getBuiltinModule = undefined;
    try {
      body();
    } finally {
      process.getBuiltinModule = original;
    }
  }

  it("a runtime with no synchronous require: a TypeError saying what to write instead", () => {
    withoutBuiltinModules(() => {
      expect(() => tool({ name: "weather", input, execute: noop })).toThrow(
        new TypeError(
          'tool "weather": a zod 3 schema is turned into JSON Schema by zod-to-json-schema, which this runtime cannot load synchronously (it has no process.getBuiltinModule, as Node 20.16+, Bun and Deno have); use zod 4 (zod 3.25 ships it as "zod/v4"), or give the JSON Schema yourself: jsonSchema(theJsonSchema, yourZod3Schema)',
        ),
      );
    });
  });

  it("there, a zod 3 type with no JSON form is still refused by its path", () => {
    withoutBuiltinModules(() => {
      expect(() =>
        tool({ name: "when", input: z3.object({ at: z3.date() }), execute: noop }),
      ).toThrow(/^tool "when": input field `at` is a Date/);
    });
  });

  it("where the runtime has it, the same schema gives its JSON Schema", () => {
    const weather = tool({ name: "weather", input, execute: noop });
    expect(weather.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
  });
});
