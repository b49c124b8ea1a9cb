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
    // (no execute at all is a client-side tool: test/features/client-side-tools.test.ts)
    expect(() => tool({ name: "t", input: z.object({}), execute: "run" as never })).toThrow(
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
    expectTypeOf(t).toEqualTypeOf<
      Tool<{ db: string }, { city: string; days: number }, { city: string; days: number }>
    >();
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
    const schema: StandardSchema<unknown, { s: string }> = {
      "~standard": {
        version: 1,
        vendor: "mine",
        validate: (value) => ({ value: value as { s: string } }),
        jsonSchema: { input: () => ({ type: "object", properties: { s: { type: "string" } } }) },
      },
    };
    expect(tool({ name: "s", input: schema, execute: noop }).inputSchema).toEqual({
      type: "object",
      properties: { s: { type: "string" } },
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
      input: jsonSchema<{ n: number }>({ type: "object" }, (value) => {
        const { n } = value as { n: unknown };
        return typeof n === "number" && n > 0
          ? { value: { n } }
          : { issues: [{ message: "must be positive", path: ["n"] }] };
      }),
      execute: ({ n }) => n * 2,
    });
    const byZod = tool({
      name: "z",
      input: jsonSchema({ type: "object" }, z.object({ n: z.number() })),
      execute: ({ n }) => n,
    });
    expect(await runCalls(byFunction, ['{"n":2}', '{"n":-1}'])).toEqual([
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

describe("tool() rejects an input a model cannot satisfy", () => {
  it.each([
    ["z.string()", z.string(), 'has type "string"'],
    ["z.array()", z.array(z.object({ a: z.string() })), 'has type "array"'],
    [
      "a union of objects",
      z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
      "is a union or intersection (anyOf) with no type of its own",
    ],
    ["zod 3 z.number()", z3.number(), 'has type "number"'],
    ["jsonSchema of an array", jsonSchema({ type: "array", items: {} }), 'has type "array"'],
    ["jsonSchema without a type", jsonSchema({ properties: { a: {} } }), "has no type"],
  ])("%s: not an object at the top", (_, input, got) => {
    const make = () => tool({ name: "t", input: input as StandardSchema, execute: noop });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`tool "t": \`input\` must describe an object`);
    expect(make).toThrow(`this one ${got}. Instead,`);
  });

  it.each([
    ["z.date()", z.object({ a: z.object({ when: z.date() }) }), "a.when", "a Date"],
    ["z.bigint()", z.object({ ids: z.array(z.bigint()) }), "ids[]", "a BigInt"],
    ["z.map()", z.object({ m: z.map(z.string(), z.number()) }), "m", "a Map"],
    ["z.set()", z.object({ s: z.set(z.string()) }), "s", "a Set"],
    ["z.symbol()", z.object({ s: z.symbol() }), "s", "a symbol"],
    ["z.function()", z.object({ f: z.function() }), "f", "a function"],
    ["z.undefined()", z.object({ u: z.undefined() }), "u", "undefined"],
    ["z.void()", z.object({ v: z.void() }), "v", "void"],
    ["z.nan()", z.object({ n: z.nan() }), "n", "NaN"],
    ["z.custom()", z.object({ c: z.custom<string>() }), "c", "a z.custom() type"],
    ["an optional z.date()", z.object({ d: z.date().optional() }), "d", "a Date"],
    ["z.date() in a record", z.object({ r: z.record(z.string(), z.date()) }), "r.*", "a Date"],
    ["z.date() in a union", z.object({ u: z.union([z.string(), z.date()]) }), "u", "a Date"],
    ["z.date() in a tuple", z.object({ t: z.tuple([z.string(), z.date()]) }), "t[1]", "a Date"],
  ])("zod 4 %s: a type with no JSON Schema form, named by its path", (_, input, path, what) => {
    const make = () => tool({ name: "t", input, execute: noop });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      `tool "t": input field \`${path}\` is ${what}, which has no JSON Schema form`,
    );
  });

  it.each([
    ["ZodDate", z3.object({ items: z3.array(z3.object({ when: z3.date() })) }), "items[].when"],
    ["ZodBigInt", z3.object({ n: z3.bigint() }), "n"],
    ["ZodMap", z3.object({ m: z3.map(z3.string(), z3.string()) }), "m"],
    ["ZodSet", z3.object({ s: z3.set(z3.string()) }), "s"],
    ["ZodSymbol", z3.object({ s: z3.symbol() }), "s"],
    ["ZodFunction", z3.object({ f: z3.function() }), "f"],
    ["ZodPromise", z3.object({ p: z3.promise(z3.string()) }), "p"],
    ["ZodUndefined", z3.object({ u: z3.undefined() }), "u"],
    ["ZodVoid", z3.object({ v: z3.void() }), "v"],
    ["ZodNaN", z3.object({ n: z3.nan() }), "n"],
    ["ZodNever", z3.object({ n: z3.never() }), "n"],
    ["ZodDate, optional in a record", z3.object({ r: z3.record(z3.date().optional()) }), "r.*"],
    ["ZodDate in a union", z3.object({ u: z3.union([z3.string(), z3.date()]) }), "u"],
  ])("zod 3 %s: rejected with its path", (_, input, path) => {
    const make = () => tool({ name: "t", input, execute: noop });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`tool "t": input field \`${path}\` is`);
  });

  it("says what to write instead, and accepts it", () => {
    expect(() => tool({ name: "t", input: z.object({ when: z.date() }), execute: noop })).toThrow(
      /instead, write an ISO date string, z\.iso\.datetime\(\)/,
    );
    const v4 = tool({
      name: "v4",
      input: z.object({ when: z.iso.datetime().transform((s) => new Date(s)) }),
      execute: noop,
    });
    const v3 = tool({
      name: "v3",
      input: z3.object({
        when: z3
          .string()
          .datetime()
          .transform((s) => new Date(s)),
        day: z3.string().pipe(z3.coerce.date()),
      }),
      execute: noop,
    });
    expect(v4.inputSchema.properties).toMatchObject({ when: { type: "string" } });
    expect(v3.inputSchema.properties).toEqual({
      when: { type: "string", format: "date-time" },
      day: { type: "string" },
    });
  });
});

describe("a tool's output", () => {
  it("a generator function as execute is a TypeError at tool(): its output would be an iterator", () => {
    for (const execute of [
      function* () {
        yield 1;
      },
      async function* () {
        yield 1;
      },
    ]) {
      expect(() => tool({ name: "t", input: z.object({}), execute: execute as never })).toThrow(
        'tool "t": execute is a generator function (function*); a tool returns its output once',
      );
    }
  });

  it("an iterator a tool returns is its error result, never a silent {}", async () => {
    const list = tool({ name: "list", input: z.object({}), execute: () => [1, 2].values() });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "list" }] }, { text: "done" }]),
      tools: [list],
    });
    const { messages } = await loop.run("go");
    const result = messages.find((message) => message.role === "tool");
    expect(result).toMatchObject({ results: [{ isError: true }] });
    expect(JSON.stringify(result)).toMatch(
      /returned a value JSON cannot carry: an iterator at output/,
    );
  });
});

describe("tool() rejects options it does not know", () => {
  it.each([
    ["inputSchema", "input"],
    ["parameters", "input"],
    ["schema", "input"],
    ["inputs", "input"],
    ["handler", "execute"],
    ["run", "execute"],
    ["fn", "execute"],
    ["func", "execute"],
    ["maxRetry", "maxRetries"],
    ["timeout", "timeoutMs"],
    ["requiresApproval", "needsApproval"],
    ["descripton", "description"],
    ["Sequential", "sequential"],
  ])("%s: did you mean %s?", (key, meant) => {
    const definition = { name: "t", input: z.object({}), execute: noop, [key]: 1 };
    const make = () => tool(definition as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`tool "t": unknown option \`${key}\`; did you mean \`${meant}\`?`);
  });

  // An AI SDK or OpenAI Agents SDK tool given to tool(): test/tools/foreign-tools.test.ts (the real libraries).

  it("a tool built by tool(): says to use it as it is", () => {
    const built = tool({ name: "t", input: z.object({}), execute: noop });
    expect(() => tool(built as never)).toThrow(/already a tool built by tool\(\); use it as it is/);
  });

  it.each([
    [
      "a raw JSON Schema",
      { type: "object", properties: {} },
      /is a raw JSON Schema; wrap it: jsonSchema/,
    ],
    [
      "an object of zod fields",
      { city: z.string() },
      /is an object of field schemas; wrap it: z\.object/,
    ],
    ["a function", () => z.object({}), /is a function; pass the schema itself/],
    ["nothing", undefined, /is missing; give the schema of the args/],
  ])("`input` given %s: says what to write", (_, input, message) => {
    const make = () => tool({ name: "t", input: input as never, execute: noop });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
  });
});

describe("needsApproval", () => {
  it("gets the args in the model's form, completed with their defaults; execute gets the output", async () => {
    const seen: unknown[] = [];
    const t = tool({
      name: "count",
      input: z.object({ n: z.string().transform((s) => s.length), unit: z.string().default("m") }),
      needsApproval: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: string; unit: string }>();
        seen.push(args);
        return false;
      },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number; unit: string }>();
        seen.push(args);
        return args.n;
      },
    });
    expectTypeOf(t).toEqualTypeOf<
      Tool<unknown, { n: number; unit: string }, { n: string; unit: string }>
    >();
    expect(await runCalls(t, ['{"n":"abc"}'])).toEqual([{ output: 3, isError: false }]);
    expect(seen).toEqual([
      { n: "abc", unit: "m" },
      { n: 3, unit: "m" },
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

describe("annotations", () => {
  it("are frozen copies of the hints given, {} when none, and reach hooks and the policy", async () => {
    const given = { readOnlyHint: true, title: "Look up" };
    const lookUp = tool({
      name: "look_up",
      input: z.object({}),
      annotations: given,
      execute: noop,
    });
    const plain = tool({ name: "plain", input: z.object({}), execute: noop });
    given.readOnlyHint = false;
    expect(lookUp.annotations).toEqual({ readOnlyHint: true, title: "Look up" });
    expect(Object.isFrozen(lookUp.annotations)).toBe(true);
    expect(plain.annotations).toEqual({});
    const seen: unknown[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "look_up", args: "{}" },
          { name: "plain", args: "{}" },
        ],
      },
      { text: "done" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [lookUp, plain],
      preToolCall: [({ name, annotations }) => void seen.push(["hook", name, annotations])],
      policy: {
        decideToolCall: ({ tool }) => {
          seen.push(["policy", tool.name, tool.annotations]);
          return "ALLOW";
        },
      },
    });
    await loop.run("go");
    expect(seen).toEqual([
      ["hook", "look_up", { readOnlyHint: true, title: "Look up" }],
      ["policy", "look_up", { readOnlyHint: true, title: "Look up" }],
      ["hook", "plain", {}],
      ["policy", "plain", {}],
    ]);
  });

  it("refuses unknown keys (with a did-you-mean), hints that are not booleans and a title that is not a string", () => {
    const make = (annotations: unknown) => () =>
      tool({ name: "t", input: z.object({}), annotations: annotations as never, execute: noop });
    expect(make({ destructiveHints: true })).toThrow(
      /tool "t": annotations: unknown option `destructiveHints`; did you mean `destructiveHint`\?/,
    );
    expect(make({ readOnlyHint: "yes" })).toThrow(
      'tool "t": annotations.readOnlyHint must be a boolean, got the string "yes"',
    );
    expect(make({ title: 3 })).toThrow('tool "t": annotations.title must be a string, got 3');
    expect(make([])).toThrow(/annotations must be an object/);
    expect(make(null)).toThrow(TypeError);
  });
});
