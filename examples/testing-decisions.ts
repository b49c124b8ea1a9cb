/**
 * Asserting decisions: `decisionsOf(result)` lists every tool call of a run with the gate's
 * verdict, and `formatDecisions` prints them as a table (the vitest matchers of
 * `tollgate/vitest` show the same table when they fail). Then a property test of the gate over
 * whatever the model might say, with `arbitraryTurns` and fast-check (no vitest needed).
 *
 *   npx tsx examples/testing-decisions.ts
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { AgentLoop, type LoopPolicy, type Provider, tool } from "tollgate";
import { decisionsOf, formatDecisions, scriptedProvider } from "tollgate/testing";
import { arbitraryTurns } from "tollgate/testing/arbitraries";
import { z } from "zod";

const readNote = tool({
  name: "read_note",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
  maxRetries: 20,
});
const deleteNote = tool({
  name: "delete_note",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `deleted ${path}`,
  maxRetries: 20,
});
const tools = [readNote, deleteNote];

// The gate under test: a human approves every delete.
const policy: LoopPolicy = {
  decideToolCall: ({ call }) => (call.name === "delete_note" ? "NEEDS_APPROVAL" : "ALLOW"),
};
// maxRetries: room for the unknown tools a random script calls (each call counts, per name).
const notesAgent = (provider: Provider) =>
  new AgentLoop({ provider, tools, policy, maxRetries: 20 });

const result = await notesAgent(
  scriptedProvider([
    {
      toolCalls: [
        { name: "read_note", args: { path: "todo.txt" } },
        { name: "delete_note", args: { path: "todo.txt" } },
      ],
    },
  ]),
).run("Clean up my notes");

console.log(formatDecisions(decisionsOf(result)));
const deletes = decisionsOf(result).filter((d) => d.tool === "delete_note");
assert.deepEqual(
  deletes.map((d) => [d.verdict, d.ran]),
  [["needs-approval", false]],
);

// Whatever the model says, no delete runs without a human's approval.
await fc.assert(
  fc.asyncProperty(arbitraryTurns(tools), async (turns) => {
    const run = await notesAgent(scriptedProvider(turns)).run("go");
    for (const d of decisionsOf(run)) {
      assert.ok(!(d.tool === "delete_note" && d.ran), "a delete ran unapproved");
    }
  }),
  { numRuns: 100 },
);
console.log("property held: no delete ran unapproved in 100 random scripts");
