/**
 * The auto model: `autoProvider()` calls every tool it is offered with args generated from the
 * tool's schema (valid by construction, the same for the same seed), then answers with a
 * summary of the results. One line smoke-tests a whole agent, with no script to write.
 *
 * Run: npx tsx examples/testing-auto.ts
 */
import assert from "node:assert/strict";
import { AgentLoop, tool } from "tollgate";
import { autoProvider } from "tollgate/testing";
import { z } from "zod";

const bookTable = tool({
  name: "book_table",
  description: "Books a table",
  input: z.object({
    email: z.email(),
    day: z.iso.date(),
    guests: z.int().min(1).max(8),
    seating: z.enum(["inside", "terrace"]),
    note: z.string().max(40).optional(),
  }),
  execute: ({ guests, seating }) => `table for ${guests}, ${seating}`,
});
const tools = [bookTable];

const result = await new AgentLoop({ provider: autoProvider({ seed: 42 }), tools }).run("go");

assert.equal(result.status, "completed");
const call = result.steps[0]!.calls[0]!;
assert.equal(call.verdict, "allow"); // the generated args passed the tool's own schema
console.log(result.text);

// The same seed gives the same args; another seed, others.
const again = await new AgentLoop({ provider: autoProvider({ seed: 42 }), tools }).run("go");
assert.deepEqual(again.steps[0]!.calls[0]!.args, call.args);
console.log(
  `same seed, same args: ${JSON.stringify(again.steps[0]!.calls[0]!.args) === JSON.stringify(call.args)}`,
);
