/**
 * Toolsets: an immutable set of tools with unique names. Every operation returns a new set, so
 * one full set can be narrowed per agent (`pick`, `without`) or grown (`with`) safely.
 *
 *   npx tsx examples/toolset.ts
 */
import { pathToFileURL } from "node:url";
import {
  AgentLoop,
  DuplicateToolError,
  type RunResult,
  Toolset,
  tool,
  toolset,
  UnknownToolError,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const notes = new Map([["groceries", "milk, eggs"]]);

const readNote = tool({
  name: "read_note",
  description: "Read a note by title",
  input: z.object({ title: z.string() }),
  execute: ({ title }) => notes.get(title) ?? `no note called ${title}`,
});
const writeNote = tool({
  name: "write_note",
  description: "Create or replace a note",
  input: z.object({ title: z.string(), text: z.string() }),
  execute: ({ title, text }) => {
    notes.set(title, text);
    return "saved";
  },
});
const deleteNote = tool({
  name: "delete_note",
  description: "Delete a note",
  input: z.object({ title: z.string() }),
  execute: ({ title }) => (notes.delete(title) ? "deleted" : "no such note"),
});

export async function main(): Promise<RunResult> {
  const all = toolset([readNote, writeNote, deleteNote]);
  const readOnly = all.without("delete_note", "write_note");
  console.log("all:", all.names(), "size", all.size);
  console.log("readOnly:", readOnly.names());
  console.log("pick:", all.pick("write_note", "read_note").names());
  console.log("find('nope'):", all.find("nope"), "| empty:", Toolset.empty().isEmpty());
  console.log("specs sent to the model:", JSON.stringify(readOnly.toSpecs()));

  try {
    all.with(readNote); // names are unique
  } catch (error) {
    console.log(error instanceof DuplicateToolError, (error as Error).message);
  }
  try {
    all.get("send_email");
  } catch (error) {
    console.log(error instanceof UnknownToolError, (error as Error).message);
  }

  // An agent with the read-only set cannot delete, whatever the model asks for.
  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "read_note", args: { title: "groceries" } },
        { name: "delete_note", args: { title: "groceries" } },
      ],
    },
    { text: "The groceries note says: milk, eggs. I cannot delete notes." },
  ]);
  const loop = new AgentLoop({ provider, tools: readOnly });
  const result = await loop.run("Read the groceries note, then delete it.");
  for (const call of result.steps[0]!.calls) {
    console.log(`${call.toolName}: ${call.verdict} → ${JSON.stringify(call.result?.output)}`);
  }
  console.log("note still there:", notes.has("groceries"));
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
