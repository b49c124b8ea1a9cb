/**
 * Tools: `tool()` with a zod v4 schema, a zod v3 schema (`zod/v3`) and a raw JSON Schema
 * (`jsonSchema()`); a tool that asks the model to try again (`RetryError`); a bigger retry
 * budget (`withMaxRetries`); and what the model is told when its args are wrong.
 *
 *   npx tsx examples/tools.ts
 */
import { pathToFileURL } from "node:url";
import type { RunResult } from "tollgate";
import { AgentLoop, jsonSchema, RetryError, tool, withMaxRetries } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";
import { z as z3 } from "zod/v3";

const users = new Map([
  [1, "Ana"],
  [2, "Bo"],
  [3, "Chen"],
]);

// zod v4. `execute` gets typed args: `id` is a number.
const findUser = tool({
  name: "find_user",
  description: "The name of the user with this id",
  input: z.object({ id: z.number().describe("A user id") }),
  execute: async ({ id }) => {
    const name = users.get(id);
    // The message goes to the model, which may call again; each RetryError counts as a failure.
    if (!name) throw new RetryError(`no user ${id}; the ids are ${[...users.keys()].join(", ")}`);
    return { id, name };
  },
});

// zod v3 works the same (via zod-to-json-schema).
const add = tool({
  name: "add",
  description: "Add two numbers",
  input: z3.object({ a: z3.number(), b: z3.number() }),
  execute: ({ a, b }) => a + b,
});

// A raw JSON Schema; without a validator, @cfworker/json-schema checks the args against it.
const shout = tool({
  name: "shout",
  description: "Upper-case a text",
  input: jsonSchema<{ text: string }>({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  }),
  execute: ({ text }) => text.toUpperCase(),
});

// A tool may fail `maxRetries` times (default 1) before the run rejects; this one 3 times.
const patientFindUser = withMaxRetries(findUser, 3);

export async function main(): Promise<RunResult> {
  for (const { name, maxRetries, inputSchema } of [patientFindUser, add, shout]) {
    console.log(`${name} (maxRetries ${maxRetries}):`, JSON.stringify(inputSchema.properties));
  }

  const provider = scriptedProvider([
    {
      toolCalls: [
        { name: "find_user", args: { id: 42 } }, // unknown id: RetryError
        { name: "add", args: { a: 2, b: "3" } }, // schema violation: b is not a number
        { name: "shout", args: { text: "hello" } },
      ],
    },
    {
      toolCalls: [
        { name: "find_user", args: { id: 2 } },
        { name: "add", args: { a: 2, b: 3 } },
      ],
    },
    { text: "User 2 is Bo, and 2 + 3 = 5." },
  ]);
  const loop = new AgentLoop({ provider, tools: [patientFindUser, add, shout] });
  loop.on("tool-result", ({ toolName, output, isError }) => {
    console.log(`  ${isError ? "error" : "ok   "} ${toolName}: ${JSON.stringify(output)}`);
  });

  const result = await loop.run("Who is user 42, and what is 2 + 3? Shout hello.");
  console.log(result.text);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
