/**
 * Typing deps: `tool.withDeps<Deps>()` once, then every tool gets its args typed from its schema
 * and `ctx.deps` typed as `Deps`, with no annotation; a loop whose tools need deps does not
 * compile without them.
 *
 *   npx tsx examples/typed-deps.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

interface Deps {
  db: { userName(id: number): Promise<string | undefined> };
  audit: string[];
}

// Once: a tool() whose tools get `ctx.deps` as Deps.
const depsTool = tool.withDeps<Deps>();

const findUser = depsTool({
  name: "find_user",
  description: "The name of the user with this id",
  input: z.object({ id: z.number() }),
  // `id` is a number (from the schema) and `deps` is Deps: nothing to annotate.
  execute: async ({ id }, { deps }) => {
    deps.audit.push(`find_user ${id}`);
    return (await deps.db.userName(id)) ?? `no user ${id}`;
  },
});

export async function main(): Promise<RunResult> {
  const users = new Map([[1, "Ana"]]);
  const deps: Deps = { db: { userName: async (id) => users.get(id) }, audit: [] };
  const provider = scriptedProvider([
    { toolCalls: [{ name: "find_user", args: { id: 1 } }] },
    { text: "User 1 is Ana." },
  ]);

  // `deps` is required: without it this line does not compile, since find_user reads ctx.deps.
  const loop = new AgentLoop({ provider, tools: [findUser], deps });
  const result = await loop.run("Who is user 1?");

  console.log(result.text); // User 1 is Ana.
  console.log(`audit: ${deps.audit.join(", ")}`); // audit: find_user 1
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
