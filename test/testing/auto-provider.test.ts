import fc from "fast-check";
import { AgentLoop, jsonSchema, TollgateError, tool } from "tollgate";
import { autoProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** A zod 4 tool with every construct the auto model must handle. */
const booking = tool({
  name: "book",
  description: "Books a trip",
  input: z
    .object({
      email: z.email(),
      site: z.url(),
      id: z.uuid(),
      day: z.iso.date(),
      at: z.iso.datetime(),
      time: z.iso.time(),
      ip: z.ipv4(),
      seats: z.int().min(1).max(9),
      share: z.number().gt(0).lt(1),
      step: z.number().multipleOf(5),
      pair: z.tuple([z.string(), z.number()]),
      extras: z.record(z.string(), z.number()),
      cabin: z.enum(["economy", "business"]),
      version: z.literal(3),
      note: z.string().nullable(),
      tag: z.string().min(2).max(4).optional(),
      names: z.array(z.string().min(1).max(5)).min(1).max(3),
      either: z.union([z.string(), z.number()]),
      code: z.string().regex(/^[A-Z]{3}-\d{2}$/),
      flag: z.boolean(),
      both: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })),
      pay: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("card"), last4: z.string().length(4) }),
        z.object({ kind: z.literal("cash") }),
      ]),
      address: z.object({ street: z.string(), zip: z.string().optional() }).strict(),
    })
    .strict(),
  execute: () => "booked",
});

/** A raw JSON Schema tool: $ref into $defs and definitions, recursion, nullable, oneOf, patterns. */
const raw = tool({
  name: "raw",
  description: "A raw JSON Schema",
  input: jsonSchema({
    type: "object",
    additionalProperties: false,
    required: ["node", "level", "when", "maybe", "pick", "ratio"],
    properties: {
      node: { $ref: "#/$defs/node" },
      level: { $ref: "#/definitions/level" },
      when: { type: "string", format: "time" },
      maybe: { type: ["integer", "null"], minimum: -3, maximum: 3 },
      pick: {
        oneOf: [
          { type: "string", const: "x" },
          { type: "number", minimum: 10 },
        ],
      },
      ratio: { type: "number", exclusiveMinimum: 1, exclusiveMaximum: 2 },
      host: { type: "string", format: "hostname" },
      set: { type: "array", items: { enum: [1, 2, 3, 4] }, uniqueItems: true, maxItems: 3 },
      id: { type: "string", pattern: "^(?:ord|inv)_[a-f0-9]{6}$" },
    },
    $defs: {
      node: {
        type: "object",
        additionalProperties: false,
        required: ["name"],
        properties: {
          name: { type: "string", minLength: 1 },
          children: { type: "array", items: { $ref: "#/$defs/node" }, maxItems: 2 },
        },
      },
    },
    definitions: { level: { enum: ["low", "high"] } },
  }),
  execute: () => "ok",
});

const firstCalls = async (seed: number, tools = [booking, raw]) => {
  const result = await new AgentLoop({ provider: autoProvider({ seed }), tools }).run("go");
  return result;
};

describe("autoProvider", () => {
  it("generates args valid by construction for zod 4 and raw JSON Schema tools, whatever the seed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1_000_000, max: 1_000_000 }), async (seed) => {
        const result = await firstCalls(seed);
        expect(result.status).toBe("completed");
        const calls = result.steps[0]!.calls;
        expect(calls.map((c) => [c.toolName, c.verdict, c.result?.isError])).toEqual([
          ["book", "allow", false],
          ["raw", "allow", false],
        ]);
      }),
      { numRuns: 150 },
    );
  });

  it("is deterministic by seed: the same seed gives the same args, another seed others", async () => {
    const argsOf = async (seed: number) =>
      (await firstCalls(seed)).steps[0]!.calls.map((call) => call.args);
    expect(await argsOf(7)).toEqual(await argsOf(7));
    const seeds = [1, 2, 3, 4, 5];
    const all = await Promise.all(seeds.map(async (seed) => JSON.stringify(await argsOf(seed))));
    expect(new Set(all).size).toBe(seeds.length);
  });

  it("includes optional properties sometimes, and nulls where allowed", async () => {
    const seen = { tag: 0, noTag: 0, nullNote: 0 };
    for (let seed = 0; seed < 40; seed++) {
      const args = (await firstCalls(seed, [booking])).steps[0]!.calls[0]!.args as {
        tag?: string;
        note: string | null;
      };
      if ("tag" in args) seen.tag++;
      else seen.noTag++;
      if (args.note === null) seen.nullNote++;
    }
    expect(seen.tag).toBeGreaterThan(0);
    expect(seen.noTag).toBeGreaterThan(0);
    expect(seen.nullNote).toBeGreaterThan(0);
  });

  it("answers with a summary of the results, each tool ok or error with a short output", async () => {
    const fails = tool({
      name: "fails",
      description: "always fails",
      input: z.object({}),
      execute: () => {
        throw new Error("disk full");
      },
    });
    const provider = autoProvider();
    const result = await new AgentLoop({ provider, tools: [raw, fails], maxRetries: 3 }).run("go");
    expect(result.text).toMatch(
      /^Called 2 tool\(s\):\n- raw: ok — ok\n- fails: error — .*disk full/,
    );
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["raw", "fails"]);
  });

  it("calls only the tools named in `calls`, and fails on a name the request does not offer", async () => {
    const result = await new AgentLoop({
      provider: autoProvider({ calls: ["raw"] }),
      tools: [booking, raw],
    }).run("go");
    expect(result.steps[0]!.calls.map((c) => c.toolName)).toEqual(["raw"]);
    const error = await new AgentLoop({ provider: autoProvider({ calls: ["nope"] }), tools: [raw] })
      .run("go")
      .catch((e) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error.message).toMatch(/calls names the tool "nope", .*\(offered: raw\)/);
  });

  it("answers structured output with a valid value: native responseFormat and the final-answer tool", async () => {
    const output = z.object({
      city: z.string().min(1),
      temp: z.number().min(-50).max(50),
      at: z.iso.date(),
    });
    const native = await new AgentLoop({
      provider: autoProvider({ supportsNativeOutput: true }),
      tools: [raw],
      output,
    }).run("go");
    expect(output.safeParse(native.output).success).toBe(true);
    const toolMode = await new AgentLoop({ provider: autoProvider(), tools: [raw], output }).run(
      "go",
    );
    expect(output.safeParse(toolMode.output).success).toBe(true);
    expect(toolMode.steps[0]!.calls.map((c) => c.toolName)).toEqual(["raw"]);
    const renamed = await new AgentLoop({
      provider: autoProvider({ finalAnswerTool: "answer" }),
      output: { schema: output, name: "answer" },
    }).run("go");
    expect(output.safeParse(renamed.output).success).toBe(true);
  });

  it("fails closed on a keyword it cannot satisfy, naming the tool, the path and the keyword", async () => {
    const run = (schema: Record<string, unknown>) =>
      new AgentLoop({
        provider: autoProvider(),
        tools: [
          tool({ name: "odd", description: "d", input: jsonSchema(schema), execute: () => 1 }),
        ],
      })
        .run("go")
        .catch((e) => e);
    const not = await run({
      type: "object",
      required: ["a"],
      properties: {
        a: { type: "object", required: ["b"], properties: { b: { not: { type: "string" } } } },
      },
    });
    expect(not).toBeInstanceOf(TollgateError);
    expect(not.message).toMatch(/tool "odd" at \/a\/b: the keyword "not" is not supported/);
    const look = await run({
      type: "object",
      required: ["p"],
      properties: { p: { type: "string", pattern: "^(?=a)\\w+$" } },
    });
    expect(look.message).toMatch(/tool "odd" at \/p: "pattern" .* is beyond the cheap subset/);
    const format = await run({
      type: "object",
      required: ["f"],
      properties: { f: { type: "string", format: "iban" } },
    });
    expect(format.message).toMatch(/tool "odd" at \/f: the "format" "iban" is not supported/);
    const none = await run({
      type: "object",
      required: ["n"],
      properties: { n: { type: "integer", minimum: 1.2, maximum: 1.8 } },
    });
    expect(none.message).toMatch(/tool "odd" at \/n: no integer lies within the bounds/);
  });

  it("streams like the other fakes", async () => {
    const result = await new AgentLoop({
      provider: autoProvider({ stream: true, chunkSize: 3 }),
      tools: [raw],
    }).run("go");
    expect(result.steps[0]!.calls[0]!.verdict).toBe("allow");
    expect(result.text).toMatch(/^Called 1 tool/);
  });

  it("rejects bad options", () => {
    expect(() => autoProvider({ seed: 1.5 })).toThrow(/seed must be a whole number/);
    expect(() => autoProvider({ calls: "raw" as never })).toThrow(/calls must be a list/);
  });
});
