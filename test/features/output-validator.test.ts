import fc from "fast-check";
import {
  AgentLoop,
  type Message,
  OutputValidationError,
  type OutputValidatorContext,
  PolicyError,
} from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";

/**
 * `output.validate` (issue 29 §1): a check of the parsed answer that reads `deps` and the
 * transcript, and may ask the model to try again (counted as a failed schema is) or end the
 * run. The oracle for what the model was told is the scripted provider's recorded requests.
 */

const Invoice = z.object({ customer: z.string(), total: z.number() });
type Invoice = z.infer<typeof Invoice>;
const known = { db: { customers: new Set(["acme"]) } };
type Db = typeof known;

const final = (args: unknown): ScriptedTurn => ({ toolCalls: [{ name: "final_answer", args }] });
const text = (value: unknown): ScriptedTurn => ({ text: JSON.stringify(value) });

/** The validator the tests share: only a known customer is accepted. */
const knownCustomer = (invoice: Invoice, ctx: OutputValidatorContext<Db>) =>
  ctx.deps.db.customers.has(invoice.customer)
    ? undefined
    : `customer ${invoice.customer} does not exist; use one from lookup_customer`;

const lastToolResult = (messages: readonly Message[]) => {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.results.at(-1) : undefined;
};
const userTexts = (messages: readonly Message[]) =>
  messages.flatMap((message) => (message.role === "user" ? [message.content] : []));

describe('output.validate in "tool" mode', () => {
  it("reads deps, and a refusal goes back as the final-answer call's error result", async () => {
    const provider = scriptedProvider([
      final({ customer: "globex", total: 5 }),
      final({ customer: "acme", total: 5 }),
    ]);
    const loop = new AgentLoop({
      provider,
      deps: known,
      output: { schema: Invoice, mode: "tool", validate: knownCustomer },
    });
    const result = await loop.run("Bill acme 5");
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ customer: "acme", total: 5 });
    expect(provider.requests).toHaveLength(2);
    expect(lastToolResult(provider.requests[1]!.messages)).toMatchObject({
      toolName: "final_answer",
      isError: true,
      output: "customer globex does not exist; use one from lookup_customer",
    });
  });

  it("gets the output as the schema parsed it, the step, the run id and frozen messages", async () => {
    const seen: { output: unknown; step: number; runId: string; messages: readonly Message[] }[] =
      [];
    const loop = new AgentLoop({
      provider: scriptedProvider([final({ n: "41" })]),
      output: {
        schema: z.object({ n: z.string().transform(Number) }),
        validate: (output, { step, runId, messages }) => {
          expectTypeOf(output).toEqualTypeOf<{ n: number }>();
          seen.push({ output, step, runId, messages });
        },
      },
    });
    const result = await loop.run("n?", { runId: "run-7" });
    expect(result.output).toEqual({ n: 41 });
    expect(seen).toHaveLength(1);
    const [{ output, step, runId, messages }] = seen as [(typeof seen)[0]];
    expect({ output, step, runId }).toEqual({ output: { n: 41 }, step: 0, runId: "run-7" });
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(Object.isFrozen(messages)).toBe(true);
    expect(Object.isFrozen(messages[1])).toBe(true);
  });

  it("takes { retry } as a retry too, and an async validator", async () => {
    const provider = scriptedProvider([
      final({ customer: "x", total: 1 }),
      final({ customer: "y", total: 1 }),
    ]);
    const loop = new AgentLoop({
      provider,
      output: {
        schema: Invoice,
        validate: async (invoice) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return invoice.customer === "x" ? { retry: "not x" } : undefined;
        },
      },
    });
    const result = await loop.run("go");
    expect(result.output).toEqual({ customer: "y", total: 1 });
    expect(lastToolResult(provider.requests[1]!.messages)).toMatchObject({ output: "not x" });
  });
});

describe('output.validate in "native" and "prompted" modes', () => {
  for (const mode of ["native", "prompted"] as const) {
    it(`${mode}: a refusal goes back as a user message and the run goes on`, async () => {
      const provider = scriptedProvider(
        [text({ customer: "globex", total: 5 }), text({ customer: "acme", total: 5 })],
        { supportsNativeOutput: true },
      );
      const loop = new AgentLoop({
        provider,
        deps: known,
        output: { schema: Invoice, mode, validate: async (i, ctx) => knownCustomer(i, ctx) },
      });
      const result = await loop.run("Bill acme 5");
      expect(result.output).toEqual({ customer: "acme", total: 5 });
      expect(userTexts(provider.requests[1]!.messages).at(-1)).toBe(
        "Your final answer was not accepted: customer globex does not exist; use one from lookup_customer.",
      );
      // The refused answer is not the output, and the validator saw the accepted one last.
      expect(result.steps).toHaveLength(2);
    });
  }
});

describe("output.validate's retries count as the schema's do", () => {
  it("a schema failure and a refusal together go past maxRetries 1: OutputValidationError naming the last problem", async () => {
    const provider = scriptedProvider([
      final({ customer: "acme" }), // fails the schema
      final({ customer: "globex", total: 1 }), // refused
      final({ customer: "acme", total: 1 }),
    ]);
    const loop = new AgentLoop({
      provider,
      deps: known,
      maxRetries: 1,
      output: { schema: Invoice, validate: knownCustomer },
    });
    const error = await loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as Error).message).toContain("customer globex does not exist");
    expect(provider.requests).toHaveLength(2);
  });

  it("within maxRetries the run completes with the accepted answer", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([
        final({ customer: "acme" }),
        final({ customer: "globex", total: 1 }),
        final({ customer: "acme", total: 1 }),
      ]),
      deps: known,
      maxRetries: 2,
      output: { schema: Invoice, validate: knownCustomer },
    });
    const result = await loop.run("go");
    expect(result.output).toEqual({ customer: "acme", total: 1 });
  });
});

describe("output.validate fails closed", () => {
  it("a throw ends the run with PolicyError, the thrown error as cause", async () => {
    class Tripwire extends Error {}
    const tripwire = new Tripwire("fraud suspected");
    for (const validate of [
      () => {
        throw tripwire;
      },
      async () => Promise.reject(tripwire),
    ]) {
      const provider = scriptedProvider([final({ customer: "acme", total: 1 })]);
      const loop = new AgentLoop({ provider, output: { schema: Invoice, validate } });
      const error = await loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("output.validate");
      expect((error as PolicyError).cause).toBe(tripwire);
      expect((error as Error).message).toContain("fraud suspected");
    }
  });

  it("a text-mode throw ends the run too", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([text({ customer: "acme", total: 1 })], {
        supportsNativeOutput: true,
      }),
      output: {
        schema: Invoice,
        validate: () => {
          throw new Error("no");
        },
      },
    });
    await expect(loop.run("go")).rejects.toMatchObject({
      name: "PolicyError",
      callback: "output.validate",
    });
  });

  for (const [label, answer] of [
    ["the output itself", { customer: "acme", total: 1 }],
    ["true", true],
    ["{ retry: 5 }", { retry: 5 }],
    ["{ retry, extra }", { retry: "x", extra: 1 }],
    ["null", null],
  ] as const) {
    it(`an answer of ${label} is a PolicyError saying how to accept or retry`, async () => {
      for (const mode of ["tool", "native"] as const) {
        const loop = new AgentLoop({
          provider: scriptedProvider(
            [
              mode === "tool"
                ? final({ customer: "acme", total: 1 })
                : text({ customer: "acme", total: 1 }),
            ],
            { supportsNativeOutput: true },
          ),
          output: { schema: Invoice, mode, validate: (() => answer) as never },
        });
        const error = await loop.run("go").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PolicyError);
        expect((error as Error).message).toMatch(/return undefined .* to accept/);
      }
    });
  }

  it("validate that is not a function is a TypeError at construction, and in run()", async () => {
    const provider = scriptedProvider([]);
    expect(
      () => new AgentLoop({ provider, output: { schema: Invoice, validate: 5 as never } }),
    ).toThrow(/AgentLoop: output\.validate must be a function/);
    expect(
      () => new AgentLoop({ provider, output: { schema: Invoice, valdate: () => {} } as never }),
    ).toThrow(/validate/);
    const loop = new AgentLoop({ provider });
    await expect(
      loop.run("go", { output: { schema: Invoice, validate: "yes" as never } }),
    ).rejects.toThrow(/run\(\): output\.validate must be a function/);
  });
});

describe("every way to a final answer passes the validator", () => {
  it("a run's own output brings its own validator (the loop's is not asked)", async () => {
    const asked: string[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        final({ customer: "x", total: 1 }),
        final({ customer: "y", total: 2 }),
      ]),
      output: { schema: Invoice, validate: () => void asked.push("loop") },
    });
    const result = await loop.run("go", {
      output: {
        schema: Invoice,
        validate: (invoice) => {
          asked.push(`run:${invoice.customer}`);
          return invoice.customer === "x" ? "not x" : undefined;
        },
      },
    });
    expect(result.output).toEqual({ customer: "y", total: 2 });
    expect(asked).toEqual(["run:x", "run:y"]);
  });

  it("a sub-agent hands up only an accepted answer", async () => {
    const subProvider = scriptedProvider([
      final({ customer: "globex", total: 1 }),
      final({ customer: "acme", total: 1 }),
    ]);
    const sub = new AgentLoop({
      provider: subProvider,
      deps: known,
      output: { schema: Invoice, validate: knownCustomer },
    });
    const parent = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "biller", args: { prompt: "bill" } }] },
        { text: "done" },
      ]),
      tools: [sub.asTool({ name: "biller", description: "Bills" })],
    });
    const result = await parent.run("go");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      isError: false,
      output: JSON.stringify({ customer: "acme", total: 1 }),
    });
    expect(subProvider.requests).toHaveLength(2);
  });

  it("a final answer that runs on resume (approved) is validated then", async () => {
    const asked: unknown[] = [];
    const options = {
      provider: scriptedProvider([
        final({ customer: "x", total: 1 }),
        final({ customer: "y", total: 1 }),
      ]),
      trustState: true,
      preToolCall: [() => ({ confirm: true })],
      output: {
        schema: Invoice,
        validate: (invoice: Invoice) => {
          asked.push(invoice.customer);
          return invoice.customer === "x" ? "not x" : undefined;
        },
      },
    };
    const loop = new AgentLoop(options);
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(asked).toEqual([]);
    const id = paused.pending![0]!.toolCallId;
    const again = await loop.resume(paused.state, { [id]: { approve: true } });
    expect(again.status).toBe("needs_approval");
    expect(asked).toEqual(["x"]);
    const id2 = again.pending![0]!.toolCallId;
    const done = await loop.resume(again.state, { [id2]: { approve: true } });
    expect(asked).toEqual(["x", "y"]);
    expect(done.output).toEqual({ customer: "y", total: 1 });
  });

  it("stream(): run-finish carries the accepted answer, never the refused one", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider(
        [text({ customer: "globex", total: 5 }), text({ customer: "acme", total: 5 })],
        { supportsNativeOutput: true, stream: true, chunkSize: 8 },
      ),
      deps: known,
      output: { schema: Invoice, validate: knownCustomer },
    });
    let finished: unknown;
    for await (const event of loop.stream("go")) {
      if (event.type === "run-finish") finished = event.result.output;
    }
    expect(finished).toEqual({ customer: "acme", total: 5 });
  });
});

describe("property: result.output is always an answer the validator accepted", () => {
  it("for random answers and verdicts, the output is accepted and the retries match", async () => {
    const turn = fc.record({
      valid: fc.boolean(), // whether the answer passes the schema
      accept: fc.boolean(), // the validator's verdict, when asked
      mode: fc.constantFrom("tool", "native"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        fc.nat(4),
        async (turns, maxRetries) => {
          const mode = turns[0]!.mode;
          const script = turns.map((t, i) => {
            const answer = t.valid ? { customer: `c${i}`, total: i } : { customer: `c${i}` };
            return mode === "tool" ? final(answer) : text(answer);
          });
          const verdicts = new Map(turns.map((t, i) => [`c${i}`, t.accept]));
          const accepted: unknown[] = [];
          const loop = new AgentLoop({
            provider: scriptedProvider(script, { supportsNativeOutput: true }),
            maxRetries,
            output: {
              schema: Invoice,
              mode,
              validate: (invoice) => {
                if (!verdicts.get(invoice.customer)) return `refused ${invoice.customer}`;
                accepted.push(invoice);
              },
            },
          });
          // The oracle: the first turn both valid and accepted, if it comes within the budget.
          const first = turns.findIndex((t) => t.valid && t.accept);
          const outcome = await loop.run("go").then(
            (result) => ({ ok: true as const, result }),
            (error: unknown) => ({ ok: false as const, error }),
          );
          if (first !== -1 && first <= maxRetries) {
            expect(outcome.ok).toBe(true);
            if (!outcome.ok) return;
            expect(outcome.result.output).toEqual({ customer: `c${first}`, total: first });
            expect(accepted).toEqual([outcome.result.output]);
            expect(outcome.result.steps).toHaveLength(first + 1);
          } else if (turns.length > maxRetries) {
            expect(outcome.ok).toBe(false);
            if (outcome.ok) return;
            expect(outcome.error).toBeInstanceOf(OutputValidationError);
            const last = turns[maxRetries]!;
            expect((outcome.error as Error).message).toContain(
              last.valid ? `refused c${maxRetries}` : "",
            );
            expect(accepted).toEqual([]);
          } else {
            // The script ran out before the budget did: never an unaccepted output.
            if (outcome.ok) expect(accepted).toEqual([outcome.result.output]);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
