// Type tests (tsc --noEmit, also under exactOptionalPropertyTypes via tsconfig.types.json):
// typed deps without annotations, and a loop that cannot be built without the deps its tools need.
import {
  AgentLoop,
  type AgentLoopOptions,
  type PreToolCallHook,
  type Tool,
  tool,
  toolset,
  withMaxRetries,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { expectTypeOf } from "vitest";
import { z } from "zod";

interface Db {
  user(id: string): Promise<string>;
}
interface Deps {
  db: Db;
}
const deps: Deps = { db: { user: async (id) => id } };
const provider = scriptedProvider([]);

// tool.withDeps<Deps>(): args from the schema, ctx.deps is Deps, no annotation.
const defineTool = tool.withDeps<Deps>();
const findUser = defineTool({
  name: "find_user",
  input: z.object({ id: z.string(), limit: z.number().default(10) }),
  needsApproval: (args, ctx) => {
    expectTypeOf(args).toEqualTypeOf<{ id: string; limit: number }>();
    expectTypeOf(ctx.deps).toEqualTypeOf<Deps>();
    return false;
  },
  execute: ({ id, limit }, { deps }) => {
    expectTypeOf(id).toEqualTypeOf<string>();
    expectTypeOf(limit).toEqualTypeOf<number>();
    expectTypeOf(deps).toEqualTypeOf<Deps>();
    return deps.db.user(id);
  },
});
expectTypeOf(findUser).toMatchTypeOf<Tool<Deps, { id: string; limit: number }>>();

defineTool({
  name: "typo",
  input: z.object({ id: z.string() }),
  // @ts-expect-error args come from the schema: there is no `name`
  execute: ({ name }) => name,
});
defineTool({
  name: "no_such_dep",
  input: z.object({}),
  // @ts-expect-error ctx.deps is Deps: there is no `cache`
  execute: (_args, { deps }) => deps.cache,
});

// The plain tool() is unchanged: no deps, args from the schema.
const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }, ctx) => {
    expectTypeOf(ctx.deps).toEqualTypeOf<unknown>();
    return text;
  },
});

// A loop whose tools need deps needs `deps`...
// @ts-expect-error `deps` is required: findUser reads ctx.deps
new AgentLoop({ provider, tools: [findUser] });
// @ts-expect-error also when only one tool of several needs them
new AgentLoop({ provider, tools: [echo, findUser] });
// @ts-expect-error and for a Toolset
new AgentLoop({ provider, tools: toolset([findUser]) });
// @ts-expect-error and for the AI SDK's { name: tool } record
new AgentLoop({ provider, tools: { echo, find_user: findUser } });
// @ts-expect-error deps of the wrong shape
new AgentLoop({ provider, tools: [findUser], deps: { db: 1 } });
// @ts-expect-error a hook that reads deps needs them too
new AgentLoop({ provider, preToolCall: [(call: { deps: Deps }) => void call.deps.db] });

// ...and with them, the loop's Deps is the tools' Deps (a record too).
const loop = new AgentLoop({ provider, tools: [echo, findUser], deps });
new AgentLoop({ provider, tools: { echo, find_user: findUser }, deps });
expectTypeOf(loop).toEqualTypeOf<AgentLoop<Deps>>();
void loop.run("hi", { deps: { db: deps.db } });
// @ts-expect-error a run's deps have the loop's type
void loop.run("hi", { deps: { cache: 1 } });
new AgentLoop<Deps>({ provider, tools: [findUser], deps });

// Tools that need no deps (unknown, undefined, any) need no `deps`.
new AgentLoop({ provider, tools: [echo] });
new AgentLoop({ provider });
new AgentLoop({ provider, tools: [withMaxRetries(echo, 3)] });
const optional = tool.withDeps<Deps | undefined>()({
  name: "optional_deps",
  input: z.object({}),
  execute: (_args, { deps }) => deps?.db,
});
new AgentLoop({ provider, tools: [optional] });

// The options type says it too.
const options: AgentLoopOptions<Deps> = { provider, tools: [findUser], deps };
// @ts-expect-error AgentLoopOptions<Deps> requires deps
const missing: AgentLoopOptions<Deps> = { provider, tools: [findUser] };
void options;
void missing;

// A hook typed for the loop's deps.
const auditHook: PreToolCallHook<Deps> = ({ deps }) => void deps.db;
new AgentLoop({ provider, tools: [findUser], deps, preToolCall: [auditHook] });
