import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  jsonSchema,
  type LoopEventOf,
  type Message,
  PolicyError,
  type PreToolCallHook,
  type Tool,
  tool,
  type ValidationResult,
} from "tollgate";
import { type ScriptedToolCall, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type GateRequest, gate } from "../../src/gate/gate.js";
import { gateRequest } from "../support/gate-request.js";

/**
 * The gate's edges a mutation run found untested: the messages the model reads for calls that
 * cannot run, async schemas behind a rewriting hook, rewrites JSON cannot carry, a human's
 * refusal remembered without a reason, the policy's malformed answers, and the gate staying
 * synchronous while everything it calls is.
 */

const ran: string[] = [];
const send = tool({
  name: "send",
  input: z.object({ to: z.string() }),
  execute: ({ to }) => {
    ran.push(`send ${to}`);
    return `sent to ${to}`;
  },
});
const read = tool({
  name: "read",
  input: z.object({}),
  execute: () => {
    ran.push("read");
    return "contents";
  },
});

/** Runs one step of the given calls (then a final answer): the result, the decisions and the tool results. */
async function oneStep(
  calls: ScriptedToolCall[],
  options: Partial<AgentLoopOptions> = {},
  tools: Tool[] = [send, read],
) {
  ran.length = 0;
  const decisions: LoopEventOf<"tool-decision">[] = [];
  const loop = new AgentLoop({
    provider: scriptedProvider([{ toolCalls: calls }, { text: "done" }]),
    tools,
    ...options,
    onEvent: (event) => {
      if (event.type === "tool-decision") decisions.push(event);
    },
  });
  const result = await loop.run("go");
  const results = result.messages.flatMap((m: Message) => (m.role === "tool" ? m.results : []));
  return { result, decisions, results };
}

describe("calls that cannot run: what the model reads", () => {
  it("names the tools it can call, comma-separated", async () => {
    const { results } = await oneStep([{ name: "nope" }]);
    expect(results).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: "nope",
        isError: true,
        output: "tool nope is not available in this step; the tools you can call are: send, read",
      },
    ]);
  });

  it('says "none" when no tool is callable', async () => {
    const { results } = await oneStep([{ name: "send", args: { to: "a" } }], {}, []);
    expect(results.map((r) => r.output)).toEqual([
      "tool send is not available in this step; the tools you can call are: none",
    ]);
  });
});

describe("a hook that rewrites args", () => {
  it("an async schema re-validates the rewrite; later hooks see it and the tool runs with it", async () => {
    const validated: unknown[] = [];
    const mail = tool({
      name: "mail",
      input: jsonSchema<{ to: string }>(
        { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
        async (value) => {
          validated.push(value);
          const { to } = value as { to?: unknown };
          return typeof to === "string"
            ? { value: { to: to.toUpperCase() } }
            : { issues: [{ message: "expected a string", path: ["to"] }] };
        },
      ),
      execute: ({ to }) => {
        ran.push(`mail ${to}`);
        return "mailed";
      },
    });
    const seen: unknown[] = [];
    const hooks: PreToolCallHook[] = [
      () => ({ args: { to: "bob" } }),
      (call) => {
        seen.push(call.args);
      },
    ];
    const { decisions, results } = await oneStep(
      [{ name: "mail", args: { to: "alice" } }],
      { preToolCall: hooks },
      [mail],
    );
    expect(validated).toEqual([{ to: "alice" }, { to: "bob" }]);
    expect(seen).toEqual([{ to: "bob" }]);
    expect(ran).toEqual(["mail BOB"]);
    expect(decisions.map((d) => [d.verdict, d.by, d.call?.args])).toEqual([
      ["allow", "default", { to: "bob" }],
    ]);
    expect(results.map((r) => r.output)).toEqual(["mailed"]);
  });

  it("into a value JSON cannot carry: HookError saying so, and nothing runs", async () => {
    const cases: [unknown, string][] = [
      [
        { to: 1n },
        "pre-call hook 0 (preToolCall[0]) rewrote the args of send into args that are not JSON args: they cannot be written as JSON: they hold a BigInt at args.to (return it as a string or a number); the call did not run",
      ],
      [
        { to: new Map([["bob", 1]]) },
        "pre-call hook 0 (preToolCall[0]) rewrote the args of send into args that are not JSON args: they cannot be written as JSON: they hold a Map (return Object.fromEntries(map) or an array) at args.to; the call did not run",
      ],
      [
        () => ({ to: "bob" }),
        "pre-call hook 0 (preToolCall[0]) rewrote the args of send into args that are not JSON args: a function cannot be written as JSON; the call did not run",
      ],
    ];
    for (const [args, message] of cases) {
      const error = await oneStep([{ name: "send", args: { to: "x" } }], {
        preToolCall: [() => ({ args })],
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HookError);
      expect((error as HookError).message).toBe(message);
      expect((error as HookError).hookIndex).toBe(0);
      expect(ran).toEqual([]);
    }
  });
});

describe("a call a human refused, asked again", () => {
  it("without a reason: denied by approval, and the model is told not to ask again", async () => {
    const guarded = tool({
      name: "send",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => {
        ran.push(`send ${to}`);
        return "sent";
      },
    });
    const provider = scriptedProvider([
      { toolCalls: [{ id: "s1", name: "send", args: { to: "bob" } }] },
      { toolCalls: [{ id: "s2", name: "send", args: { to: "bob" } }] },
      { text: "giving up" },
    ]);
    const loop = new AgentLoop({ provider, tools: [guarded], allowReplay: true });
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const digest = paused.pending![0]!.digest;
    const result = await loop.resume(paused.state, { s1: { approve: false, digest } });
    expect(result.status).toBe("completed");
    expect(result.steps[1]!.calls[0]).toMatchObject({
      verdict: "deny",
      by: "approval",
      reason: "already refused in this run; do not ask for it again",
    });
    const results = result.messages.flatMap((m: Message) => (m.role === "tool" ? m.results : []));
    expect(results.map((r) => [r.toolCallId, r.output])).toEqual([
      ["s1", "the call to send was refused by a human"],
      ["s2", "the call to send was denied: already refused in this run; do not ask for it again"],
    ]);
    expect(ran).toEqual([]);
  });
});

describe("policy.decideToolCall answers", () => {
  it("the object form decides like the string form, with its reason", async () => {
    const { decisions, results } = await oneStep(
      [{ name: "send", args: { to: "a" } }, { name: "read" }],
      {
        policy: {
          decideToolCall: ({ call }) =>
            call.name === "send"
              ? { decision: "DENY", reason: "no mail today" }
              : { decision: "ALLOW" },
        },
      },
    );
    expect(decisions.map((d) => [d.verdict, d.by, d.reason])).toEqual([
      ["deny", "policy", "no mail today"],
      ["allow", "policy", undefined],
    ]);
    expect(results.map((r) => r.output)).toEqual([
      "the call to send was denied: no mail today",
      "contents",
    ]);
    expect(ran).toEqual(["read"]);
  });

  it("anything else rejects the run with PolicyError listing the answers it takes", async () => {
    const answers = 'return "ALLOW", "DENY", "NEEDS_APPROVAL", { decision, reason? } or undefined';
    const cases: [unknown, string][] = [
      ["MAYBE", `decideToolCall (tool read) returned "MAYBE"; ${answers}`],
      [
        { decision: "MAYBE" },
        `decideToolCall (tool read) returned {"decision":"MAYBE"}; ${answers}`,
      ],
      [{ decision: 1 }, `decideToolCall (tool read) returned {"decision":1}; ${answers}`],
      [
        { decision: "ALLOW", reason: 2 },
        `decideToolCall (tool read) returned {"decision":"ALLOW","reason":2}; ${answers}`,
      ],
      [
        { decision: "ALLOW", why: "x" },
        `decideToolCall (tool read) returned {"decision":"ALLOW","why":"x"}; ${answers}`,
      ],
      [["ALLOW"], `decideToolCall (tool read) returned ["ALLOW"]; ${answers}`],
      [null, `decideToolCall (tool read) returned null; ${answers}`],
    ];
    for (const [answer, message] of cases) {
      const error = await oneStep([{ name: "read" }], {
        policy: { decideToolCall: () => answer as never },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).message).toBe(message);
      expect((error as PolicyError).callback).toBe("decideToolCall");
      expect(ran).toEqual([]);
    }
  });
});

describe("gate() unit", () => {
  const input = (overrides: Partial<GateRequest<undefined>>): GateRequest<undefined> =>
    gateRequest(send as Tool<undefined>, overrides);

  it("answers synchronously while every hook, schema and policy does (no microtask on the hot path)", () => {
    const outcome = gate(
      input({
        hooks: [() => undefined, () => ({ confirm: false }), () => ({ args: { to: "eve" } })],
        policy: { decideToolCall: () => undefined },
      }),
    );
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(outcome).toMatchObject({ kind: "allow", by: "hook:1", call: { args: { to: "eve" } } });
  });

  it("answers later once a hook does, with the same verdict", async () => {
    const outcome = gate(input({ hooks: [async () => ({ block: "later" })] }));
    expect(outcome).toBeInstanceOf(Promise);
    await expect(outcome).resolves.toMatchObject({ kind: "block", by: "hook:0", message: "later" });
  });

  it("an async schema validating a hook's rewrite: the outcome waits for it", async () => {
    const checked = tool({
      name: "send",
      input: jsonSchema(
        { type: "object" },
        async (value) => ({ value }) as ValidationResult<unknown>,
      ),
      execute: () => "ok",
    });
    const outcome = gate(
      input({
        tool: checked as Tool<undefined>,
        part: { type: "tool-call", id: "c1", name: "send", args: "{}" },
        hooks: [() => ({ args: { to: "bob" } })],
      }),
    );
    await expect(outcome).resolves.toMatchObject({
      kind: "allow",
      by: "default",
      parsed: { to: "bob" },
    });
  });
});
