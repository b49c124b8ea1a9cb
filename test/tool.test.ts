import {
  AgentLoop,
  jsonSchema,
  type StandardSchema,
  type Tool,
  type ToolContext,
  tool,
  withMaxRetries,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";

const noop = () => "ok";

describe("tool()", () => {
  it("returns a frozen tool with every field of the contract and its defaults", () => {
    const t = tool({
      name: "get_weather",
      description: "Weather",
      input: z.object({ city: z.string() }),
      execute: noop,
    });
    expect(Object.isFrozen(t)).toBe(true);
    expect(t).toMatchObject({
      name: "get_weather",
      description: "Weather",
      maxRetries: 1,
      needsApproval: false,
      sequential: false,
    });
    expect(t.timeoutMs).toBeUndefined();
    expect(typeof t.execute).toBe("function");
    expect(t.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
  });

  it("keeps maxRetries, needsApproval, timeoutMs and sequential as given", () => {
    const approve = () => true;
    const t = tool({
      name: "x",
      input: z.object({}),
      maxRetries: 3,
      needsApproval: approve,
      timeoutMs: 50,
      sequential: true,
      execute: noop,
    });
    expect(t).toMatchObject({
      maxRetries: 3,
      needsApproval: approve,
      timeoutMs: 50,
      sequential: true,
    });
  });

  it.each([
    ["", "empty"],
    ["has space", "space"],
    ["a".repeat(65), "65 chars"],
    ["dot.name", "dot"],
  ])("rejects the invalid name %j (%s)", (name) => {
    expect(() => tool({ name, input: z.object({}), execute: noop })).toThrow(TypeError);
  });

  it("accepts names of letters, digits, _ and - up to 64 characters", () => {
    expect(
      tool({ name: `a-B_9${"x".repeat(59)}`, input: z.object({}), execute: noop }).name,
    ).toHaveLength(64);
  });

  it("rejects a bad maxRetries, timeoutMs, execute or input with a TypeError naming the tool", () => {
    expect(() => tool({ name: "t", input: z.object({}), maxRetries: -1, execute: noop })).toThrow(
      /"t".*maxRetries/,
    );
    expect(() => tool({ name: "t", input: z.object({}), maxRetries: 1.5, execute: noop })).toThrow(
      /maxRetries/,
    );
    expect(() => tool({ name: "t", input: z.object({}), timeoutMs: 0, execute: noop })).toThrow(
      /timeoutMs/,
    );
    expect(() => tool({ name: "t", input: z.object({}), execute: undefined as never })).toThrow(
      /execute/,
    );
    expect(() => tool({ name: "t", input: { type: "object" } as never, execute: noop })).toThrow(
      /input/,
    );
  });

  it("computes the JSON Schema once, when the tool is made", () => {
    let conversions = 0;
    const schema: StandardSchema<unknown, { a: string }> = {
      "~standard": {
        version: 1,
        vendor: "counting",
        validate: (value) => ({ value: value as { a: string } }),
        jsonSchema: {
          input: () => {
            conversions++;
            return { type: "object", properties: { a: { type: "string" } } };
          },
        },
      },
    };
    const t = tool({ name: "t", input: schema, execute: noop });
    expect(conversions).toBe(1);
    t.inputSchema;
    t.inputSchema;
    expect(conversions).toBe(1);
  });

  it("types execute's args from the schema and ctx from Deps", () => {
    const t = tool({
      name: "typed",
      input: z.object({ city: z.string(), days: z.number().default(1) }),
      execute: (args, ctx: ToolContext<{ db: string }>) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
        expectTypeOf(ctx.deps).toEqualTypeOf<{ db: string }>();
        return args.city;
      },
    });
    expectTypeOf(t).toEqualTypeOf<Tool<{ db: string }, { city: string; days: number }>>();
  });
});

describe("schemas", () => {
  it("zod v4 and zod v3 both give real properties (zod-to-json-schema alone gives {} for v4)", () => {
    const v4 = tool({
      name: "v4",
      input: z.object({ city: z.string(), n: z.number().optional() }),
      execute: noop,
    });
    const v3 = tool({
      name: "v3",
      input: z3.object({ city: z3.string(), n: z3.number().optional() }),
      execute: noop,
    });
    for (const t of [v4, v3]) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.inputSchema.properties).toMatchObject({
        city: { type: "string" },
        n: { type: "number" },
      });
      expect(t.inputSchema.required).toEqual(["city"]);
    }
  });

  it("describes zod v4 inputs (a field with a default is optional to the model)", () => {
    const t = tool({ name: "d", input: z.object({ n: z.number().default(3) }), execute: noop });
    expect(t.inputSchema.required ?? []).not.toContain("n");
  });

  it("uses a Standard Schema's own JSON Schema converter", () => {
    const schema: StandardSchema<unknown, string> = {
      "~standard": {
        version: 1,
        vendor: "mine",
        validate: (value) =>
          typeof value === "string" ? { value } : { issues: [{ message: "want a string" }] },
        jsonSchema: { input: () => ({ type: "string" }) },
      },
    };
    expect(tool({ name: "s", input: schema, execute: noop }).inputSchema).toEqual({
      type: "string",
    });
  });

  it("rejects a Standard Schema that cannot give a JSON Schema, saying to use jsonSchema()", () => {
    const schema: StandardSchema<unknown, string> = {
      "~standard": {
        version: 1,
        vendor: "valibot",
        validate: (value) => ({ value: String(value) }),
      },
    };
    expect(() => tool({ name: "s", input: schema, execute: noop })).toThrow(/jsonSchema\(/);
  });

  it("jsonSchema() sends the raw schema and validates with the built-in validator", async () => {
    const input = jsonSchema<{ city: string }>({
      type: "object",
      properties: { city: { type: "string", minLength: 2 } },
      required: ["city"],
      additionalProperties: false,
    });
    const t = tool({ name: "raw", input, execute: ({ city }) => city });
    expect(t.inputSchema).toBe(input.jsonSchema);
    const results = await runCalls(t, [
      '{"city":"Oslo"}',
      '{"city":"O"}',
      "{}",
      '{"city":"Oslo","x":1}',
      '{"city":3}',
    ]);
    expect(results[0]).toEqual({ output: "Oslo", isError: false });
    expect(results[1]?.output).toMatch(/city: expected at least 2 characters/);
    expect(results[2]?.output).toMatch(/city: required/);
    expect(results[3]?.output).toMatch(/x: unknown property/);
    expect(results[4]?.output).toMatch(/city: expected string, received number/);
  });

  it("jsonSchema() with a validator uses it: a function or a Standard Schema", async () => {
    const byFunction = tool({
      name: "f",
      input: jsonSchema<number>({ type: "number" }, (value) =>
        typeof value === "number" && value > 0
          ? { value }
          : { issues: [{ message: "must be positive", path: ["n"] }] },
      ),
      execute: (n) => n * 2,
    });
    const byZod = tool({
      name: "z",
      input: jsonSchema({ type: "object" }, z.object({ n: z.number() })),
      execute: ({ n }) => n,
    });
    expect(await runCalls(byFunction, ["2", "-1"])).toEqual([
      { output: 4, isError: false },
      { output: expect.stringMatching(/n: must be positive/), isError: true },
    ]);
    expect(await runCalls(byZod, ['{"n":5}', '{"n":"5"}'])).toEqual([
      { output: 5, isError: false },
      { output: expect.stringMatching(/n: .*expected number/), isError: true },
    ]);
  });

  it("validates with an async Standard Schema", async () => {
    const t = tool({
      name: "a",
      input: z.object({ n: z.number().refine(async (n) => n > 1, "too small") }),
      execute: ({ n }) => n,
    });
    expect(await runCalls(t, ['{"n":2}', '{"n":1}'])).toEqual([
      { output: 2, isError: false },
      { output: expect.stringMatching(/n: too small/), isError: true },
    ]);
  });
});

describe("withMaxRetries", () => {
  it("returns a frozen copy with the new maxRetries and leaves the original alone", () => {
    const t = tool({ name: "t", input: z.object({}), execute: noop });
    const more = withMaxRetries(t, 5);
    expect(more.maxRetries).toBe(5);
    expect(t.maxRetries).toBe(1);
    expect(Object.isFrozen(more)).toBe(true);
    expect(more.inputSchema).toBe(t.inputSchema);
    expect(() => withMaxRetries(t, -2)).toThrow(TypeError);
  });
});

/** Runs one call per args text (each with its own run) and returns what the model saw. */
async function runCalls(t: Tool<unknown>, argsTexts: string[]) {
  const results = [];
  for (const args of argsTexts) {
    const provider = scriptedProvider([{ toolCalls: [{ name: t.name, args }] }, { text: "done" }]);
    const loop = new AgentLoop({ provider, tools: [withMaxRetries(t, 5)] });
    const result = await loop.run("go");
    const toolMessage = result.messages.find((m) => m.role === "tool");
    if (toolMessage?.role !== "tool") throw new Error("no tool message");
    const { output, isError } = toolMessage.results[0]!;
    results.push({ output, isError });
  }
  return results;
}
