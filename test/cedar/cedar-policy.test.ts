import { AgentLoop, tool } from "tollgate";
import { cedarPolicy } from "tollgate/cedar";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCedarWasm } from "../../src/cedar/load.js";

interface Deps {
  user?: string;
}

const POLICIES = `
@id("anyone-searches")
permit(principal, action == Action::"search", resource);

@id("small-transfers")
permit(principal in Group::"staff", action == Action::"transfer", resource)
when { context.args.amount <= 100 };

@id("big-transfers-ask")
@ask
permit(principal in Group::"staff", action == Action::"transfer", resource)
when { context.args.amount > 100 };

@id("no-eve")
forbid(principal == User::"eve", action, resource);

@id("read-only-anything")
permit(principal, action, resource)
when { context.annotations has readOnlyHint && context.annotations.readOnlyHint };
`;

const ENTITIES = [
  { uid: { type: "User", id: "ana" }, attrs: {}, parents: [{ type: "Group", id: "staff" }] },
  { uid: { type: "User", id: "eve" }, attrs: {}, parents: [{ type: "Group", id: "staff" }] },
  { uid: { type: "User", id: "bob" }, attrs: {}, parents: [] },
  { uid: { type: "Group", id: "staff" }, attrs: {}, parents: [] },
];

const principal = (deps: Deps) => (deps.user ? { type: "User", id: deps.user } : undefined);
const policy = cedarPolicy<Deps>({ policies: POLICIES, entities: ENTITIES, principal });

const ran: string[] = [];
const tools = [
  tool({
    name: "search",
    description: "Search",
    input: z.object({ query: z.string() }),
    execute: ({ query }) => {
      ran.push(`search ${query}`);
      return "found";
    },
  }),
  tool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      ran.push(`transfer ${amount}`);
      return "moved";
    },
  }),
  tool({
    name: "balance",
    description: "Read the balance",
    input: z.object({}),
    annotations: { readOnlyHint: true },
    execute: () => {
      ran.push("balance");
      return 42;
    },
  }),
];

async function runOne(name: string, args: unknown, deps: Deps) {
  ran.length = 0;
  const loop = new AgentLoop<Deps>({
    provider: scriptedProvider([{ toolCalls: [{ name, args }] }, { text: "done" }]),
    tools,
    policy,
    deps,
  });
  return loop.run("go");
}

describe("cedarPolicy: a LoopPolicy that asks Cedar", () => {
  it("Cedar's allow runs the call, naming the permit that decided", async () => {
    const result = await runOne("search", { query: "cedar" }, { user: "bob" });
    expect(result.steps[0]!.calls[0]!).toMatchObject({
      verdict: "allow",
      reason: "permitted by Cedar policy anyone-searches",
    });
    expect(ran).toEqual(["search cedar"]);
  });

  it("a forbid denies, naming the forbid; the tool does not run", async () => {
    const result = await runOne("search", { query: "x" }, { user: "eve" });
    expect(result.steps[0]!.calls[0]!).toMatchObject({
      verdict: "deny",
      reason: "forbidden by Cedar policy no-eve",
    });
    expect(ran).toEqual([]);
  });

  it("no permit is Cedar's default deny, said as such", async () => {
    const result = await runOne("transfer", { amount: 5 }, { user: "bob" });
    expect(result.steps[0]!.calls[0]!).toMatchObject({
      verdict: "deny",
      reason: 'no Cedar policy permits transfer for User::"bob"',
    });
    expect(ran).toEqual([]);
  });

  it("the principal comes from deps: group membership through entities decides", async () => {
    expect(
      (await runOne("transfer", { amount: 5 }, { user: "ana" })).steps[0]!.calls[0]!.verdict,
    ).toBe("allow");
    expect(ran).toEqual(["transfer 5"]);
    const perRun = await new AgentLoop<Deps>({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { amount: 5 } }] },
        { text: "done" },
      ]),
      tools,
      policy,
      deps: { user: "ana" },
    }).run("go", { deps: { user: "bob" } });
    expect(perRun.steps[0]!.calls[0]!.verdict).toBe("deny");
  });

  it("an @ask permit pauses the run for approval, and an approved call runs", async () => {
    const loop = new AgentLoop<Deps>({
      provider: scriptedProvider([
        { toolCalls: [{ name: "transfer", args: { amount: 500 } }] },
        { text: "done" },
      ]),
      tools,
      policy,
      deps: { user: "ana" },
      trustState: true,
    });
    ran.length = 0;
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending![0]!.reason).toBe(
      'Cedar policy big-transfers-ask (@ask) permits transfer for User::"ana" with approval',
    );
    expect(ran).toEqual([]);
    const id = paused.pending![0]!.toolCallId;
    const resumed = await loop.resume(paused.state, { [id]: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(ran).toEqual(["transfer 500"]);
  });

  it("the context holds the args (a numeric bound decides) and the tool's annotations", () => {
    const call = (amount: number) => ({ name: "transfer", args: { amount } });
    expect(policy.explain(call(100), { user: "ana" })).toMatchObject({
      cedar: "allow",
      decision: "ALLOW",
      policies: ["small-transfers"],
    });
    expect(policy.explain(call(101), { user: "ana" })).toMatchObject({
      decision: "NEEDS_APPROVAL",
      policies: ["big-transfers-ask"],
    });
    const balance = { name: "balance", args: {} };
    expect(
      policy.explain(balance, { user: "bob" }, { annotations: { readOnlyHint: true } }),
    ).toMatchObject({
      decision: "ALLOW",
      policies: ["read-only-anything"],
    });
    // Without the annotation, nothing permits it (and `annotations` is `{}`, not missing).
    expect(policy.explain(balance, { user: "bob" })).toMatchObject({
      cedar: "deny",
      decision: "DENY",
      policies: [],
    });
  });

  it("annotations reach Cedar through a run", async () => {
    const result = await runOne("balance", {}, { user: "bob" });
    expect(result.steps[0]!.calls[0]!).toMatchObject({
      verdict: "allow",
      reason: "permitted by Cedar policy read-only-anything",
    });
  });

  it("a missing or invalid principal is a DENY with a reason (fail closed)", async () => {
    const result = await runOne("search", { query: "x" }, {});
    expect(result.steps[0]!.calls[0]!.verdict).toBe("deny");
    expect(result.steps[0]!.calls[0]!.reason).toMatch(/principal\(\) gave no Cedar entity uid/);
    expect(ran).toEqual([]);
    const call = { name: "search", args: { query: "x" } };
    for (const bad of [{ type: "User" }, { type: "", id: "x" }, 'User::"x"', null]) {
      const p = cedarPolicy({ policies: POLICIES, principal: () => bad as never });
      expect(p.explain(call, {})).toMatchObject({ decision: "DENY", cedar: "error" });
    }
    const throwing = cedarPolicy({
      policies: POLICIES,
      principal: () => {
        throw new Error("no session");
      },
    });
    expect(throwing.explain(call, {}).reason).toBe("cedarPolicy: principal() threw: no session");
  });

  it("an evaluation error is a DENY with Cedar's error, even where Cedar alone would allow", () => {
    // Cedar skips an erring policy: the forbid below errs on calls without `path`, and Cedar
    // would allow them by the permit. tollgate denies instead.
    const p = cedarPolicy({
      policies: `
        @id("all") permit(principal, action, resource);
        @id("no-etc") forbid(principal, action, resource) when { context.args.path like "/etc/*" };`,
      principal: () => ({ type: "User", id: "ana" }),
    });
    const explained = p.explain({ name: "search", args: { query: "x" } }, {});
    expect(explained).toMatchObject({ cedar: "error", decision: "DENY", policies: ["all"] });
    expect(explained.reason).toMatch(
      /^Cedar policy evaluation failed \(denied, failing closed\): no-etc: /,
    );
    expect(explained.errors[0]).toMatch(/attribute `path`/);
    expect(p.explain({ name: "read", args: { path: "/etc/passwd" } }, {})).toMatchObject({
      decision: "DENY",
      policies: ["no-etc"],
    });
    expect(p.explain({ name: "read", args: { path: "/home/a" } }, {}).decision).toBe("ALLOW");
  });

  it("args Cedar cannot hold (a fractional number) are a DENY with Cedar's error", async () => {
    const explained = policy.explain({ name: "transfer", args: { amount: 1.5 } }, { user: "ana" });
    expect(explained).toMatchObject({ cedar: "error", decision: "DENY" });
    expect(explained.reason).toMatch(/^cedarPolicy: Cedar could not evaluate the request: /);
    const nulls = policy.explain({ name: "search", args: { query: null } }, { user: "bob" });
    expect(nulls).toMatchObject({ cedar: "error", decision: "DENY" });
    expect(nulls.reason).toMatch(/null/);
  });

  it("policies that do not parse are a TypeError with Cedar's message", () => {
    expect(() =>
      cedarPolicy({ policies: "permit(principal, action, resource", principal }),
    ).toThrow(/^cedarPolicy\(\): the policies do not parse: .*unexpected end of input/);
    expect(() => cedarPolicy({ policies: "   ", principal })).toThrow(/holds no policy/);
    expect(() =>
      cedarPolicy({
        policies: `@id("a") permit(principal, action, resource); @id("a") forbid(principal, action, resource);`,
        principal,
      }),
    ).toThrow(/two policies have the id "a"/);
    expect(() =>
      cedarPolicy({ policies: `@ask forbid(principal, action, resource);`, principal }),
    ).toThrow(/is a forbid annotated @ask/);
    expect(() =>
      cedarPolicy({ policies: `permit(principal == ?principal, action, resource);`, principal }),
    ).toThrow(/templates/);
  });

  it("bad options are a TypeError naming the option", () => {
    expect(() => cedarPolicy({ policy: POLICIES, principal } as never)).toThrow(
      /unknown option `policy`; did you mean `policies`\?/,
    );
    expect(() => cedarPolicy({ policies: POLICIES } as never)).toThrow(
      /principal must be a function/,
    );
    expect(() => cedarPolicy({ policies: 1 as never, principal })).toThrow(
      /policies must be Cedar policy text/,
    );
    expect(() => cedarPolicy({ policies: POLICIES, principal, entities: {} as never })).toThrow(
      /entities must be an array/,
    );
    expect(() =>
      cedarPolicy({
        policies: POLICIES,
        principal,
        entities: [{ uid: { type: "User" }, attrs: {}, parents: [] }] as never,
      }),
    ).toThrow(/^cedarPolicy\(\): entities is not valid Cedar/);
  });

  it("a schema validates the policies at construction and each request", () => {
    const schema = `
      entity User;
      entity Tool;
      action search appliesTo { principal: User, resource: Tool, context: { args: { query: String }, annotations: {} } };`;
    const p = cedarPolicy({
      policies: `permit(principal, action == Action::"search", resource) when { context.args.query != "" };`,
      schema,
      principal: () => ({ type: "User", id: "ana" }),
    });
    expect(p.explain({ name: "search", args: { query: "x" } }, {}).decision).toBe("ALLOW");
    // A request the schema does not describe fails closed.
    expect(p.explain({ name: "search", args: { query: 1 } }, {})).toMatchObject({
      cedar: "error",
      decision: "DENY",
    });
    expect(() =>
      cedarPolicy({
        policies: `permit(principal, action == Action::"search", resource) when { context.args.nope == 1 };`,
        schema,
        principal,
      }),
    ).toThrow(/do not validate against the schema/);
    expect(() => cedarPolicy({ policies: POLICIES, schema: "entity ;", principal })).toThrow(
      /^cedarPolicy\(\): schema is not valid Cedar/,
    );
  });

  it("a missing @cedar-policy/cedar-wasm is an error that says to install it", () => {
    const missing = () => {
      throw new Error("Cannot find module '@cedar-policy/cedar-wasm/nodejs'");
    };
    expect(() => loadCedarWasm(missing)).toThrow(/npm install @cedar-policy\/cedar-wasm/);
    expect(() => loadCedarWasm(undefined)).toThrow(/npm install @cedar-policy\/cedar-wasm/);
  });
});
