import { AgentLoop, type Message, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";

interface Deps {
  users: Map<string, string>;
  log: string[];
}

const defineTool = tool.withDeps<Deps>();
const findUser = defineTool({
  name: "find_user",
  input: z.object({ id: z.string(), loud: z.boolean().default(false) }),
  needsApproval: (args, { deps }) => {
    expectTypeOf(args).toEqualTypeOf<{ id: string; loud: boolean }>(); // the gate fills defaults in
    return !deps.users.has(args.id);
  },
  execute: ({ id, loud }, { deps }) => {
    expectTypeOf(deps).toEqualTypeOf<Deps>();
    deps.log.push(id);
    const name = deps.users.get(id) ?? "nobody";
    return loud ? name.toUpperCase() : name;
  },
});

const outputs = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.output) : []));

describe("tool.withDeps", () => {
  it("returns tool() itself with Deps fixed: same checks, same frozen tool", () => {
    expect(defineTool).toBe(tool);
    expect(Object.isFrozen(findUser)).toBe(true);
    expect(() => defineTool({ name: "bad name", input: z.object({}), execute: () => 1 })).toThrow(
      /name "bad name" is invalid/,
    );
  });

  it("builds tools that run with the loop's deps, or a run's own", async () => {
    const loopDeps: Deps = { users: new Map([["1", "ada"]]), log: [] };
    const runDeps: Deps = { users: new Map([["1", "grace"]]), log: [] };
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "find_user", args: { id: "1", loud: true } }] },
        { text: "done" },
        { toolCalls: [{ name: "find_user", args: { id: "1" } }] },
        { text: "done" },
      ]),
      tools: [findUser],
      deps: loopDeps,
    });
    expect(outputs((await loop.run("who is 1?")).messages)).toEqual(["ADA"]);
    expect(outputs((await loop.run("who is 1?", { deps: runDeps })).messages)).toEqual(["grace"]);
    expect(loopDeps.log).toEqual(["1"]);
    expect(runDeps.log).toEqual(["1"]);
  });

  it("hands needsApproval the deps too", async () => {
    const deps: Deps = { users: new Map(), log: [] };
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "find_user", args: { id: "9" } }] }]),
      tools: [findUser],
      deps,
    });
    const result = await loop.run("who is 9?");
    expect(result.status).toBe("needs_approval");
    expect(result.pending?.map((p) => p.args)).toEqual([{ id: "9", loud: false }]); // completed with the default
    expect(deps.log).toEqual([]);
  });
});
