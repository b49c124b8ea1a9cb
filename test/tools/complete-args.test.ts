// What the gate judges is what runs: a call's args are completed with their schema's defaults
// before any judge sees them (hooks, onTool, the policy, needsApproval, pending, events, a
// human's edit), and execute gets the schema's output of exactly those args.
import fc from "fast-check";
import {
  AgentLoop,
  isCallTo,
  jsonSchema,
  type LoopEvent,
  memoryRunStore,
  onTool,
  PolicyError,
  type PreToolCallHook,
  type ToolInput,
  tool,
} from "tollgate";
import { decisionsOf, scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";

/** A transfer whose amount defaults to 1000, the repro. */
function transferTool(ran: unknown[]) {
  return tool({
    name: "transfer",
    input: z.object({ to: z.string(), amount: z.number().default(1000) }),
    needsApproval: ({ amount }) => amount > 100,
    execute: (args) => {
      ran.push(args);
      return "sent";
    },
  });
}

describe("a defaulted field is judged, not only run", () => {
  it("a hook blocking amount > 500 blocks the call the model sent as {} (execute would get 1000)", async () => {
    const ran: unknown[] = [];
    const seen: unknown[] = [];
    const noBigTransfers: PreToolCallHook = ({ args }) => {
      seen.push(args);
      return (args as { amount: number }).amount > 500 ? { block: "too much" } : undefined;
    };
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { to: "bob" } }] },
        { text: "done" },
      ]),
      tools: [transferTool(ran)],
      preToolCall: [noBigTransfers],
    });
    const result = await loop.run("pay bob");
    expect(seen).toEqual([{ to: "bob", amount: 1000 }]);
    expect(ran).toEqual([]);
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "block", args: { amount: 1000 } });
  });

  it("needsApproval reads the default: the call pauses, pending shows it, and approving runs exactly it", async () => {
    const ran: unknown[] = [];
    const events: LoopEvent[] = [];
    const store = memoryRunStore();
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { to: "bob" }, id: "t1" }] },
        { text: "done" },
      ]),
      tools: [transferTool(ran)],
      store,
      onEvent: (event) => events.push(event),
    });
    const paused = await loop.run("pay bob");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toEqual([
      expect.objectContaining({ toolCallId: "t1", args: { to: "bob", amount: 1000 } }),
    ]);
    const decision = events.find((event) => event.type === "tool-decision");
    expect(decision).toMatchObject({ verdict: "needs-approval", call: { args: { amount: 1000 } } });
    expect(decisionsOf(paused)).toMatchObject([{ args: { to: "bob", amount: 1000 } }]);
    const resumed = await loop.resume(paused.state.runId, { t1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(ran).toEqual([{ to: "bob", amount: 1000 }]);
  });

  it("a human's edit that leaves a defaulted field out gets the default, and the approval shows it", async () => {
    const ran: unknown[] = [];
    const events: LoopEvent[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { to: "bob", amount: 200 }, id: "t1" }] },
        { text: "done" },
      ]),
      tools: [transferTool(ran)],
      store: memoryRunStore(),
      onEvent: (event) => events.push(event),
    });
    const paused = await loop.run("pay bob");
    await loop.resume(paused.state.runId, { t1: { approve: true, args: { to: "carol" } } });
    expect(ran).toEqual([{ to: "carol", amount: 1000 }]);
    const approval = events.filter((event) => event.type === "tool-decision").at(-1);
    expect(approval).toMatchObject({
      by: "approval",
      call: { args: { to: "carol", amount: 1000 } },
    });
  });

  it("the policy and an onTool hook see the default; the assistant message keeps the model's text", async () => {
    const ran: unknown[] = [];
    const t = transferTool(ran);
    const hookSaw: unknown[] = [];
    const policySaw: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: '{"to":"bob"}' }] },
        { text: "done" },
      ]),
      tools: [tool({ ...toolDefinition(t), needsApproval: false })],
      preToolCall: [onTool(t, ({ args }) => void hookSaw.push(args.amount))],
      policy: {
        decideToolCall: ({ call }) => {
          if (isCallTo(call, t)) policySaw.push(call.args.amount);
          return "ALLOW";
        },
      },
    });
    const result = await loop.run("pay bob");
    expect(hookSaw).toEqual([1000]);
    expect(policySaw).toEqual([1000]);
    expect(ran).toEqual([{ to: "bob", amount: 1000 }]);
    expect(result.messages[1]).toMatchObject({ parts: [{ args: '{"to":"bob"}' }] });
  });

  it("a hook's rewrite that leaves a defaulted field out is completed too", async () => {
    const ran: unknown[] = [];
    const seen: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { to: "bob", amount: 5 } }] },
        { text: "done" },
      ]),
      tools: [transferTool(ran)],
      preToolCall: [() => ({ args: { to: "carol" } }), ({ args }) => void seen.push(args)],
      policy: { decideToolCall: () => "ALLOW" },
    });
    await loop.run("pay");
    expect(seen).toEqual([{ to: "carol", amount: 1000 }]);
    expect(ran).toEqual([{ to: "carol", amount: 1000 }]);
  });
});

describe("every kind of schema completes, by its JSON Schema `default`", () => {
  async function judgedAndRan(input: Parameters<typeof tool>[0]["input"], args: unknown) {
    const judged: unknown[] = [];
    const ran: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "t", args: args as object }] },
        { text: "" },
      ]),
      tools: [tool({ name: "t", input, execute: (got) => void ran.push(got) })],
      preToolCall: [({ args }) => void judged.push(args)],
    });
    const result = await loop.run("go");
    const call = result.steps[0]!.calls[0]!;
    expect(call.result?.isError, JSON.stringify(call.result)).toBe(false);
    return { judged: judged[0], ran: ran[0] };
  }

  it("zod 4: nested objects, array items, an object-or-null, a record's values, a .prefault()", async () => {
    const item = z.object({ qty: z.number().default(1) });
    const input = z.object({
      mode: z.enum(["fast", "safe"]).default("safe"),
      options: z.object({ verbose: z.boolean().default(false) }),
      items: z.array(item),
      maybe: item.nullable(),
      byName: z.record(z.string(), item),
      note: z.string().prefault("none"),
    });
    const { judged, ran } = await judgedAndRan(input, {
      options: {},
      items: [{}, { qty: 3 }],
      maybe: {},
      byName: { a: {} },
    });
    const complete = {
      options: { verbose: false },
      items: [{ qty: 1 }, { qty: 3 }],
      maybe: { qty: 1 },
      byName: { a: { qty: 1 } },
      mode: "safe",
      note: "none",
    };
    expect(judged).toEqual(complete);
    expect(ran).toEqual(complete);
  });

  it("zod 4: a null stays null; a present value is never replaced", async () => {
    const input = z.object({
      maybe: z.object({ qty: z.number().default(1) }).nullable(),
      n: z.number().default(5),
    });
    const { judged } = await judgedAndRan(input, { maybe: null, n: 0 });
    expect(judged).toEqual({ maybe: null, n: 0 });
  });

  it("zod 3 (zod/v3)", async () => {
    const input = z3.object({ city: z3.string(), days: z3.number().default(3) });
    const { judged, ran } = await judgedAndRan(input, { city: "Oslo" });
    expect(judged).toEqual({ city: "Oslo", days: 3 });
    expect(ran).toEqual({ city: "Oslo", days: 3 });
  });

  it("raw JSON Schema (jsonSchema(), as MCP servers describe their tools): $ref, allOf, prefixItems", async () => {
    const input = jsonSchema({
      type: "object",
      $defs: { page: { type: "object", properties: { size: { type: "integer", default: 20 } } } },
      properties: {
        query: { type: "string" },
        page: { $ref: "#/$defs/page" },
        sort: { allOf: [{ type: "object", properties: { dir: { default: "asc" } } }] },
        pair: {
          type: "array",
          prefixItems: [{ type: "object", properties: { x: { default: 0 } } }],
        },
        limit: { type: "integer", default: 10 },
      },
      required: ["query"],
    });
    const { judged, ran } = await judgedAndRan(input, {
      query: "q",
      page: {},
      sort: {},
      pair: [{}],
    });
    const complete = {
      query: "q",
      page: { size: 20 },
      sort: { dir: "asc" },
      pair: [{ x: 0 }],
      limit: 10,
    };
    expect(judged).toEqual(complete);
    expect(ran).toEqual(complete);
  });

  it("a default computed per call (zod's .default(() => …)) is asked each call, and judged", async () => {
    let next = 0;
    const judged: unknown[] = [];
    const ran: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "t", args: {} },
            { name: "t", args: {} },
          ],
        },
        { text: "" },
      ]),
      tools: [
        tool({
          name: "t",
          input: z.object({ id: z.string().default(() => `id-${++next}`) }),
          execute: (got) => void ran.push(got),
        }),
      ],
      preToolCall: [({ args }) => void judged.push(args)],
    });
    await loop.run("go");
    expect(judged).toEqual([
      { id: expect.stringMatching(/^id-/) },
      { id: expect.stringMatching(/^id-/) },
    ]);
    expect(judged[0]).not.toEqual(judged[1]);
    expect(ran).toEqual(judged);
  });

  it("the transform runs once, on the completed args; hooks see the model's form", async () => {
    const transformed: unknown[] = [];
    const judged: unknown[] = [];
    const ran: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "t", args: {} }] }, { text: "" }]),
      tools: [
        tool({
          name: "t",
          input: z.object({
            to: z
              .string()
              .default("ops")
              .transform((s) => {
                transformed.push(s);
                return s.toUpperCase();
              }),
          }),
          execute: (got) => void ran.push(got),
        }),
      ],
      preToolCall: [({ args }) => void judged.push(args)],
    });
    await loop.run("go");
    expect(judged).toEqual([{ to: "ops" }]);
    expect(transformed).toEqual(["ops"]);
    expect(ran).toEqual([{ to: "OPS" }]);
  });

  it("the args judges see are frozen, and the completion never changes the model's own", async () => {
    const judged: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "t", args: { a: {} } }] }, { text: "" }]),
      tools: [
        tool({
          name: "t",
          input: z.object({ a: z.object({ b: z.array(z.number()).default([1]) }) }),
          execute: () => "ok",
        }),
      ],
      preToolCall: [({ args }) => void judged.push(args)],
    });
    const result = await loop.run("go");
    const args = judged[0] as { a: { b: number[] } };
    expect(args).toEqual({ a: { b: [1] } });
    expect(Object.isFrozen(args) && Object.isFrozen(args.a) && Object.isFrozen(args.a.b)).toBe(
      true,
    );
    expect(result.steps[0]!.calls[0]!.rawArgs).toBe('{"a":{}}');
  });
});

describe("a default its own schema rejects", () => {
  it("is the tool's fault (PolicyError naming the issue), not an invalid call blamed on the model", async () => {
    const ran: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "t", args: {} }] }, { text: "" }]),
      tools: [
        tool({
          name: "t",
          // zod hands execute a default unchecked; the gate checks what it judged, and refuses.
          input: z.object({ amount: z.number().min(10).default(5) }),
          execute: (got) => void ran.push(got),
        }),
      ],
    });
    const error = await loop.run("go").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as Error).message).toMatch(
      /the input schema of tool t gives a default that it rejects itself \(amount: .*\); make each default a value its field accepts/,
    );
    expect(ran).toEqual([]);
  });

  it("args the model got wrong stay the model's invalid call", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "t", args: { amount: "ten" } }] },
        { text: "" },
      ]),
      tools: [
        tool({
          name: "t",
          input: z.object({ amount: z.number(), n: z.number().default(1) }),
          execute: () => "ok",
        }),
      ],
    });
    const result = await loop.run("go");
    expect(result.steps[0]!.calls[0]!.verdict).toBe("invalid");
  });
});

describe("types: defaulted fields are required where judges read them", () => {
  it("needsApproval, onTool, ToolInput and isCallTo", () => {
    const t = tool({
      name: "t",
      input: z.object({
        to: z.string(),
        amount: z.number().default(1000),
        note: z.string().optional(),
        nested: z.object({ retries: z.number().default(2) }),
      }),
      needsApproval: (args) => {
        expectTypeOf(args.amount).toEqualTypeOf<number>();
        return false;
      },
      execute: () => "ok",
    });
    type Judged = {
      to: string;
      amount: number;
      note?: string | undefined;
      nested: { retries: number };
    };
    expectTypeOf<ToolInput<typeof t>>().toEqualTypeOf<Judged>();
    onTool(t, ({ args }) => {
      expectTypeOf(args).toEqualTypeOf<Judged>();
    });
    const z3Tool = tool({
      name: "z3",
      input: z3.object({ days: z3.number().default(3) }),
      execute: () => "ok",
    });
    expectTypeOf<ToolInput<typeof z3Tool>>().toEqualTypeOf<{ days: number }>();
    const call = { name: "t", args: {} as unknown };
    if (isCallTo(call, t)) expectTypeOf(call.args.amount).toEqualTypeOf<number>();
  });
});

/** The definition of a built tool, to build a variant of it. */
function toolDefinition<T extends ReturnType<typeof transferTool>>(t: T) {
  return { name: t.name, input: t.input as never, execute: t.execute as never };
}

// ── The property: whatever the schema, the hooks and the policy, every judge saw the args
// execute got (no transforms here, so "before its transform" is the schema's output itself).

/** One field of a random schema: a type, maybe a default, maybe optional. */
interface FieldSpec {
  name: string;
  type: "number" | "string" | "boolean";
  defaultValue?: number | string | boolean;
  optional: boolean;
}

const sample: Record<FieldSpec["type"], fc.Arbitrary<number | string | boolean>> = {
  number: fc.integer(),
  string: fc.string({ maxLength: 4 }),
  boolean: fc.boolean(),
};

const fieldSpec = (name: string): fc.Arbitrary<FieldSpec> =>
  fc.constantFrom("number", "string", "boolean").chain(
    (type) =>
      fc.record({
        name: fc.constant(name),
        type: fc.constant(type),
        defaultValue: fc.option(sample[type], { nil: undefined }),
        optional: fc.boolean(),
      }) as fc.Arbitrary<FieldSpec>,
  );

const schemaSpec = fc
  .uniqueArray(fc.constantFrom("a", "b", "c", "d", "e"), { minLength: 1, maxLength: 5 })
  .chain((names) => fc.tuple(...names.map(fieldSpec)));

function zodSchema(fields: FieldSpec[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const field of fields) {
    const base = (
      field.type === "number" ? z.number() : field.type === "string" ? z.string() : z.boolean()
    ) as z.ZodNumber;
    shape[field.name] =
      field.defaultValue !== undefined
        ? base.default(field.defaultValue as never)
        : field.optional
          ? base.optional()
          : base;
  }
  return z.object(shape);
}

function rawSchema(fields: FieldSpec[]) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const field of fields) {
    properties[field.name] =
      field.defaultValue === undefined
        ? { type: field.type }
        : { type: field.type, default: field.defaultValue };
    if (field.defaultValue === undefined && !field.optional) required.push(field.name);
  }
  return jsonSchema({ type: "object", properties, required });
}

/** The oracle: the model's args with every missing defaulted field added. */
function completed(fields: FieldSpec[], sent: Record<string, unknown>): Record<string, unknown> {
  const out = { ...sent };
  for (const field of fields) {
    if (!(field.name in out) && field.defaultValue !== undefined)
      out[field.name] = field.defaultValue;
  }
  return out;
}

/** Args the model sends: each field present (valid) or left out, where leaving out is allowed. */
const sentArgs = (fields: FieldSpec[]) =>
  fc
    .tuple(...fields.map((field) => fc.option(sample[field.type], { nil: undefined })))
    .map((values) => {
      const sent: Record<string, unknown> = {};
      fields.forEach((field, i) => {
        const value = values[i];
        const mayLeaveOut = field.defaultValue !== undefined || field.optional;
        if (value !== undefined || !mayLeaveOut) sent[field.name] = value ?? sample0(field.type);
      });
      return sent;
    });

const sample0 = (type: FieldSpec["type"]) =>
  type === "number" ? 0 : type === "string" ? "" : false;

describe("property: what every judge saw is what execute got", () => {
  it("random schemas with defaults (zod and JSON Schema) × hooks and policies reading them × random args", async () => {
    await fc.assert(
      fc.asyncProperty(
        schemaSpec.chain((fields) =>
          fc.record({
            fields: fc.constant(fields),
            kind: fc.constantFrom("zod", "json"),
            sent: sentArgs(fields),
            hooks: fc.integer({ min: 0, max: 3 }),
            blockField: fc.option(fc.constantFrom(...fields.map((field) => field.name)), {
              nil: undefined,
            }),
            pause: fc.boolean(),
          }),
        ),
        async ({ fields, kind, sent, hooks, blockField, pause }) => {
          const seen: Array<{ by: string; args: unknown }> = [];
          const ran: unknown[] = [];
          const input = kind === "zod" ? zodSchema(fields) : rawSchema(fields);
          const t = tool({
            name: "t",
            input: input as never,
            needsApproval: (args) => {
              seen.push({ by: "needsApproval", args });
              return pause;
            },
            execute: (args) => void ran.push(args),
          });
          const hookList: PreToolCallHook[] = Array.from(
            { length: hooks },
            (_, i) =>
              ({ args }) => {
                seen.push({ by: `hook ${i}`, args });
                // A guard that reads a (possibly defaulted) field: it blocks when the field is missing.
                if (
                  blockField !== undefined &&
                  i === 0 &&
                  (args as Record<string, unknown>)[blockField] === undefined
                ) {
                  return { block: `${blockField} is missing` };
                }
                return undefined;
              },
          );
          const loop = new AgentLoop({
            provider: scriptedProvider([
              { toolCalls: [{ name: "t", args: sent, id: "c" }] },
              { text: "" },
            ]),
            tools: [t],
            preToolCall: hookList,
            store: memoryRunStore(),
            policy: {
              decideToolCall: ({ call }) => {
                seen.push({ by: "policy", args: call.args });
                return undefined;
              },
            },
          });
          let result = await loop.run("go");
          const expected = completed(fields, sent);
          if (result.status === "needs_approval") {
            expect(result.pending?.[0]?.args).toEqual(expected);
            result = await loop.resume(result.state.runId, { c: { approve: true } });
          }
          for (const judge of seen) expect(judge.args, judge.by).toEqual(expected);
          const blocked =
            blockField !== undefined && hooks > 0 && expected[blockField] === undefined;
          expect(ran).toEqual(blocked ? [] : [expected]);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("an MCP server's input schema completes the args too", () => {
  it("the hook and the server both get the server's own default", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
    const { CallToolRequestSchema, ListToolsRequestSchema } = await import(
      "@modelcontextprotocol/sdk/types.js"
    );
    const { mcpTools } = await import("tollgate/mcp");
    const received: unknown[] = [];
    const server = new Server({ name: "search", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: "search",
          inputSchema: {
            type: "object",
            properties: { q: { type: "string" }, limit: { type: "integer", default: 10 } },
            required: ["q"],
          },
          annotations: { readOnlyHint: true },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      received.push(request.params.arguments);
      return { content: [{ type: "text", text: "found" }] };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(b);
    const tools = await mcpTools(client);
    try {
      const judged: unknown[] = [];
      const loop = new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: [{ name: "search", args: { q: "tollgate" } }] },
          { text: "" },
        ]),
        tools,
        preToolCall: [({ args }) => void judged.push(args)],
      });
      await loop.run("go");
      expect(judged).toEqual([{ q: "tollgate", limit: 10 }]);
      expect(received).toEqual([{ q: "tollgate", limit: 10 }]);
    } finally {
      await tools.close();
      await server.close();
    }
  });
});
