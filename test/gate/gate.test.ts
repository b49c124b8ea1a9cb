import fc from "fast-check";
import {
  type Decision,
  type DeniedCall,
  HookError,
  type LoopPolicy,
  PolicyError,
  type PreToolCallHook,
  type PreToolCallInfo,
  type PreToolCallVerdict,
  type Tool,
  type ToolCall,
  type ToolContext,
  tool,
} from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type GateOutcome, type GateRequest, gate } from "../../src/gate/gate.js";
import { gateRequest } from "../support/gate-request.js";
import { runs } from "../support/runs.js";

/**
 * The gate on its own (DESIGN sections 4, 5 and 10): one call in, one outcome out. Callable?
 * → args read and validated → hook chain → an earlier refusal → decision (policy DENY, else
 * the last hook `confirm`, else the policy, else the tool's `needsApproval`, else ALLOW), and
 * every way user code can answer wrongly there fails closed with HookError or PolicyError.
 */

type Request = GateRequest<undefined>;

const send = tool({
  name: "send",
  input: z.object({ to: z.string(), cc: z.array(z.string()).optional() }),
  execute: () => "sent",
}) as Tool<undefined>;

/** A tool whose schema transforms: the model sends euros, `execute` would get cents. */
function payTool(seen: unknown[] = []) {
  return tool({
    name: "pay",
    input: z.object({
      amount: z.number().transform((euros) => {
        seen.push(euros);
        return Math.round(euros * 100);
      }),
    }),
    execute: () => "paid",
  }) as Tool<undefined>;
}

/** `send` with a given needsApproval. */
const needing = (needsApproval: Tool<undefined>["needsApproval"]) =>
  tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval,
    execute: () => "",
  }) as Tool<undefined>;
const GUARDED = needing(true);

const MODEL_ARGS = '{"to":"bob"}';

/** The `call` an outcome carries for the default request, with the given final args. */
const callWith = (args: unknown, rawArgs = MODEL_ARGS): ToolCall => ({
  id: "c1",
  name: "send",
  args,
  rawArgs,
});
const BOB = callWith({ to: "bob" });

function request(overrides: Partial<Request> = {}): Request {
  return gateRequest(send, {
    part: { type: "tool-call", id: "c1", name: "send", args: MODEL_ARGS },
    callable: ["send", "read"],
    step: 3,
    ...overrides,
  });
}

/** The outcome of a request the gate must answer synchronously. */
function now(req: Request): GateOutcome {
  const outcome = gate(req);
  expect(outcome).not.toBeInstanceOf(Promise);
  return outcome as GateOutcome;
}

/** The error the gate throws synchronously for a request. */
function thrownBy(req: Request): unknown {
  try {
    gate(req);
  } catch (error) {
    return error;
  }
  throw new Error("the gate did not throw");
}

/** A hook that answers `verdict` and records the args it saw. */
function hook(verdict: PreToolCallVerdict | undefined, seen: unknown[] = []) {
  return (info: PreToolCallInfo<undefined>) => {
    seen.push(info.args);
    return verdict;
  };
}

/** Callbacks that must never be reached: each records its name in `calls` when it is. */
function untouchable() {
  const calls: string[] = [];
  const hooks: PreToolCallHook<undefined>[] = [() => void calls.push("hook")];
  const policy: LoopPolicy<undefined> = { decideToolCall: () => void calls.push("decideToolCall") };
  const refused = () => {
    calls.push("refused");
    return undefined;
  };
  return { calls, hooks, policy, refused, callbacks: { hooks, policy, refused } };
}

describe("gate(): calls that never reach the hooks", () => {
  it("a tool that is not callable is unavailable; the message lists the callable tools", () => {
    const never = untouchable();
    const outcome = now(
      request({
        ...never.callbacks,
        tool: undefined,
        part: { type: "tool-call", id: "c1", name: "delete", args: MODEL_ARGS },
      }),
    );
    expect(outcome).toStrictEqual({
      kind: "unavailable",
      by: "default",
      message: "tool delete is not available in this step; the tools you can call are: send, read",
    });
    expect(never.calls).toEqual([]);
  });

  it("with no callable tool at all, the message says none", () => {
    const outcome = now(
      request({
        tool: undefined,
        callable: [],
        part: { type: "tool-call", id: "c1", name: "delete", args: MODEL_ARGS },
      }),
    );
    expect(outcome).toStrictEqual({
      kind: "unavailable",
      by: "default",
      message: "tool delete is not available in this step; the tools you can call are: none",
    });
  });

  it("a call without a tool name is unavailable with its own message", () => {
    const never = untouchable();
    const outcome = now(
      request({
        ...never.callbacks,
        tool: undefined,
        part: { type: "tool-call", id: "c1", name: "", args: MODEL_ARGS },
      }),
    );
    expect(outcome).toStrictEqual({
      kind: "unavailable",
      by: "default",
      message: "the call came without a tool name; the tools you can call are: send, read",
    });
    expect(never.calls).toEqual([]);
  });

  it("args that are not JSON are invalid, by the schema", () => {
    const never = untouchable();
    const text = '{"to":"bob"';
    let parseMessage = "";
    try {
      JSON.parse(text);
    } catch (error) {
      parseMessage = (error as Error).message;
    }
    const outcome = now(
      request({
        ...never.callbacks,
        part: { type: "tool-call", id: "c1", name: "send", args: text },
      }),
    );
    expect(outcome).toStrictEqual({
      kind: "invalid",
      by: "schema",
      message: `invalid JSON in the arguments for tool send: ${parseMessage}. Send the arguments again as one JSON object.`,
    });
    expect(never.calls).toEqual([]);
  });

  it("args the schema rejects are invalid, by the schema", () => {
    const never = untouchable();
    const outcome = now(
      request({
        ...never.callbacks,
        part: { type: "tool-call", id: "c1", name: "send", args: '{"to":7}' },
      }),
    );
    expect(outcome).toStrictEqual({
      kind: "invalid",
      by: "schema",
      message:
        "invalid arguments for tool send: to: Invalid input: expected string, received number. Fix them and call the tool again.",
    });
    expect(never.calls).toEqual([]);
  });
});

describe("gate(): one hook's verdict", () => {
  it("undefined goes on: every hook is asked, with the call's details, and the default allows", () => {
    const infos: PreToolCallInfo<undefined>[] = [];
    const record = (info: PreToolCallInfo<undefined>) => void infos.push(info);
    const outcome = now(request({ hooks: [record, record] }));
    expect(outcome).toStrictEqual({
      kind: "allow",
      by: "default",
      call: BOB,
      parsed: { to: "bob" },
    });
    const info = {
      name: "send",
      args: { to: "bob" },
      annotations: {},
      toolCallId: "c1",
      step: 3,
      provider: "test",
      model: "m",
      deps: undefined,
    };
    expect(infos).toStrictEqual([info, info]);
  });

  it("stop without a reason ends the chain: no reason key, later hooks not asked", () => {
    const later: unknown[] = [];
    const outcome = now(request({ hooks: [hook({ stop: true }), hook(undefined, later)] }));
    expect(outcome).toStrictEqual({ kind: "stop", by: "hook:0", call: BOB });
    expect(later).toEqual([]);
  });

  it("stop with a stopReason carries it as the reason", () => {
    const outcome = now(
      request({ hooks: [hook(undefined), hook({ stop: true, stopReason: "budget spent" })] }),
    );
    expect(outcome).toStrictEqual({
      kind: "stop",
      by: "hook:1",
      call: BOB,
      reason: "budget spent",
    });
  });

  it("block with a string: the model reads that string; later hooks not asked", () => {
    const later: unknown[] = [];
    const outcome = now(
      request({ hooks: [hook({ block: "not to bob" }), hook(undefined, later)] }),
    );
    expect(outcome).toStrictEqual({
      kind: "block",
      by: "hook:0",
      call: BOB,
      message: "not to bob",
    });
    expect(later).toEqual([]);
  });

  it("block: true (or an empty string) blocks with the default message", () => {
    const blocked = {
      kind: "block",
      by: "hook:0",
      call: BOB,
      message: "the call to send was blocked",
    };
    expect(now(request({ hooks: [hook({ block: true })] }))).toStrictEqual(blocked);
    expect(now(request({ hooks: [hook({ block: "" })] }))).toStrictEqual(blocked);
  });

  it("block: false does not block", () => {
    const outcome = now(request({ hooks: [hook({ block: false })] }));
    expect(outcome).toStrictEqual({
      kind: "allow",
      by: "default",
      call: BOB,
      parsed: { to: "bob" },
    });
  });

  it("result: the call does not run and the model gets that output; later hooks not asked", () => {
    const later: unknown[] = [];
    const output = { cached: true };
    const outcome = now(request({ hooks: [hook({ result: output }), hook(undefined, later)] }));
    expect(outcome).toStrictEqual({ kind: "result", by: "hook:0", call: BOB, output });
    expect(later).toEqual([]);
  });

  it("a falsy result (0, empty string, false, null) is still a result; only undefined is none", () => {
    for (const output of [0, "", false, null]) {
      const outcome = now(request({ hooks: [hook({ result: output })] }));
      expect(outcome).toStrictEqual({ kind: "result", by: "hook:0", call: BOB, output });
    }
  });

  it("confirm: true asks for approval, by that hook", () => {
    const outcome = now(request({ hooks: [hook(undefined), hook({ confirm: true })] }));
    expect(outcome).toStrictEqual({ kind: "needs-approval", by: "hook:1", call: BOB });
  });

  it("confirm: false allows, by that hook, even when the tool needs approval", () => {
    const outcome = now(request({ tool: GUARDED, hooks: [hook({ confirm: false })] }));
    expect(outcome).toStrictEqual({
      kind: "allow",
      by: "hook:0",
      call: BOB,
      parsed: { to: "bob" },
    });
  });

  it("an args rewrite: the next hook sees it, the call carries it, rawArgs stay the model's", () => {
    const seen: unknown[] = [];
    const outcome = now(
      request({ hooks: [hook({ args: { to: "eve" } }, seen), hook(undefined, seen)] }),
    );
    expect(seen).toEqual([{ to: "bob" }, { to: "eve" }]);
    expect(outcome).toStrictEqual({
      kind: "allow",
      by: "default",
      call: callWith({ to: "eve" }),
      parsed: { to: "eve" },
    });
  });

  it("a rewrite under a transforming schema: hooks and call.args in the model's form, parsed transformed once", () => {
    const transformed: unknown[] = [];
    const seen: unknown[] = [];
    const outcome = now(
      request({
        tool: payTool(transformed),
        part: { type: "tool-call", id: "c1", name: "pay", args: '{"amount":1.5}' },
        hooks: [hook({ args: { amount: 2 } }, seen), hook(undefined, seen)],
      }),
    );
    expect(seen).toEqual([{ amount: 1.5 }, { amount: 2 }]);
    expect(outcome).toStrictEqual({
      kind: "allow",
      by: "default",
      call: { id: "c1", name: "pay", args: { amount: 2 }, rawArgs: '{"amount":1.5}' },
      parsed: { amount: 200 },
    });
    // The transform only ever got model-form values (the model's, then the rewrite), never its own output.
    expect(transformed).toEqual([1.5, 2]);
  });
});

describe("gate(): within one verdict, and across verdicts", () => {
  it("stop beats block beats result", () => {
    const all = { stop: true, stopReason: "s", block: "b", result: "r" };
    expect(now(request({ hooks: [hook(all)] }))).toStrictEqual({
      kind: "stop",
      by: "hook:0",
      call: BOB,
      reason: "s",
    });
    expect(now(request({ hooks: [hook({ block: "b", result: "r" })] }))).toStrictEqual({
      kind: "block",
      by: "hook:0",
      call: BOB,
      message: "b",
    });
  });

  it("a later hook's confirm overrides an earlier one; a hook with no opinion keeps it", () => {
    expect(
      now(request({ hooks: [hook({ confirm: true }), hook({ confirm: false })] })),
    ).toStrictEqual({ kind: "allow", by: "hook:1", call: BOB, parsed: { to: "bob" } });
    expect(
      now(request({ hooks: [hook({ confirm: false }), hook({ confirm: true }), hook(undefined)] })),
    ).toStrictEqual({ kind: "needs-approval", by: "hook:1", call: BOB });
  });
});

/** A policy whose decideToolCall always answers `decision`, recording what it was asked. */
function policyOf(decision: Decision, asked: unknown[] = []): LoopPolicy<undefined> {
  return {
    decideToolCall(args) {
      asked.push(args);
      return decision;
    },
  };
}

describe("gate(): the decision", () => {
  it("a policy DENY beats a hook's confirm: false", () => {
    const outcome = now(request({ hooks: [hook({ confirm: false })], policy: policyOf("DENY") }));
    expect(outcome).toStrictEqual({ kind: "deny", by: "policy", call: BOB });
  });

  it("a policy DENY with a reason carries it", () => {
    const outcome = now(
      request({ policy: policyOf({ decision: "DENY", reason: "bob is on leave" }) }),
    );
    expect(outcome).toStrictEqual({
      kind: "deny",
      by: "policy",
      call: BOB,
      reason: "bob is on leave",
    });
  });

  it("a hook's confirm beats the policy's ALLOW and NEEDS_APPROVAL", () => {
    expect(
      now(request({ hooks: [hook({ confirm: true })], policy: policyOf("ALLOW") })),
    ).toStrictEqual({ kind: "needs-approval", by: "hook:0", call: BOB });
    expect(
      now(
        request({
          hooks: [hook({ confirm: false })],
          policy: policyOf({ decision: "NEEDS_APPROVAL", reason: "ask" }),
        }),
      ),
    ).toStrictEqual({ kind: "allow", by: "hook:0", call: BOB, parsed: { to: "bob" } });
  });

  it("policy ALLOW allows by the policy, over a tool that needs approval", () => {
    expect(now(request({ tool: GUARDED, policy: policyOf("ALLOW") }))).toStrictEqual({
      kind: "allow",
      by: "policy",
      call: BOB,
      parsed: { to: "bob" },
    });
    expect(
      now(request({ policy: policyOf({ decision: "ALLOW", reason: "trusted" }) })),
    ).toStrictEqual({
      kind: "allow",
      by: "policy",
      call: BOB,
      parsed: { to: "bob" },
      reason: "trusted",
    });
  });

  it("policy NEEDS_APPROVAL asks for approval by the policy, with its reason when given", () => {
    expect(now(request({ policy: policyOf("NEEDS_APPROVAL") }))).toStrictEqual({
      kind: "needs-approval",
      by: "policy",
      call: BOB,
    });
    expect(
      now(request({ policy: policyOf({ decision: "NEEDS_APPROVAL", reason: "external" }) })),
    ).toStrictEqual({ kind: "needs-approval", by: "policy", call: BOB, reason: "external" });
  });

  it("policy undefined defers to the tool's needsApproval, then ALLOW by default", () => {
    expect(now(request({ tool: GUARDED, policy: policyOf(undefined) }))).toStrictEqual({
      kind: "needs-approval",
      by: "tool",
      call: BOB,
    });
    expect(now(request({ policy: policyOf(undefined) }))).toStrictEqual({
      kind: "allow",
      by: "default",
      call: BOB,
      parsed: { to: "bob" },
    });
  });

  it("a needsApproval function gets the model-form args and context(tool); its answer decides", () => {
    const asked: unknown[][] = [];
    const contextFor: Tool<undefined>[] = [];
    const ctx: ToolContext<undefined> = {
      deps: undefined,
      toolCallId: "c1",
      toolName: "pay",
      retry: 0,
      maxRetries: 1,
      step: 3,
      signal: new AbortController().signal,
      rawArgs: '{"amount":1.5}',
    };
    const answers = [true, false];
    const pay = tool({
      name: "pay",
      input: z.object({ amount: z.number().transform((euros) => euros * 100) }),
      needsApproval: (args, context) => {
        asked.push([args, context]);
        return answers.shift()!;
      },
      execute: () => "paid",
    }) as Tool<undefined>;
    const req = request({
      tool: pay,
      part: { type: "tool-call", id: "c1", name: "pay", args: '{"amount":1.5}' },
      context: (t) => {
        contextFor.push(t);
        return ctx;
      },
    });
    const call = { id: "c1", name: "pay", args: { amount: 1.5 }, rawArgs: '{"amount":1.5}' };
    expect(now(req)).toStrictEqual({ kind: "needs-approval", by: "tool", call });
    expect(now(req)).toStrictEqual({ kind: "allow", by: "default", call, parsed: { amount: 150 } });
    expect(asked).toEqual([
      [{ amount: 1.5 }, ctx],
      [{ amount: 1.5 }, ctx],
    ]);
    expect(asked[0]![1]).toBe(ctx);
    expect(contextFor).toEqual([pay, pay]);
    expect(contextFor[0]).toBe(pay);
  });

  it("the tool's needsApproval reaches decideToolCall as a boolean, with the call, tool, step and deps", () => {
    const cases: [Tool<undefined>["needsApproval"], boolean][] = [
      [true, true],
      [false, false],
      [() => true, true],
      [() => false, false],
    ];
    for (const [needsApproval, expected] of cases) {
      const asked: unknown[] = [];
      const t = tool({
        name: "send",
        input: z.object({ to: z.string() }),
        needsApproval,
        execute: () => "",
      }) as Tool<undefined>;
      const ctx = { toolCallId: "c1" } as ToolContext<undefined>;
      const policy = policyOf(undefined, asked);
      now(request({ tool: t, policy, context: () => ctx }));
      expect(asked).toStrictEqual([
        { call: BOB, tool: t, needsApproval: expected, step: 3, deps: undefined, executed: [] },
      ]);
    }
  });

  it("decideToolCall is called with the policy as `this`", () => {
    const policy = {
      marker: "mine",
      decideToolCall(this: { marker: string }) {
        return this.marker === "mine" ? ("DENY" as const) : undefined;
      },
    };
    expect(now(request({ policy }))).toStrictEqual({ kind: "deny", by: "policy", call: BOB });
  });
});

describe("gate(): a call refused earlier in the run", () => {
  const refusedWith =
    (reason: string | undefined, asked: ToolCall[]) =>
    (call: ToolCall): DeniedCall => {
      asked.push(call);
      const denied: DeniedCall = { toolName: call.name, args: JSON.stringify(call.args) };
      if (reason !== undefined) denied.reason = reason;
      return denied;
    };

  it("is denied by approval with the refusal's reason; it sees the final args and beats a hook confirm", () => {
    const asked: ToolCall[] = [];
    const decided: unknown[] = [];
    const outcome = now(
      request({
        hooks: [hook({ args: { to: "eve" }, confirm: false })],
        policy: policyOf("ALLOW", decided),
        refused: refusedWith("too risky", asked),
      }),
    );
    const call = callWith({ to: "eve" });
    expect(outcome).toStrictEqual({
      kind: "deny",
      by: "approval",
      call,
      reason: "already refused in this run (too risky); do not ask for it again",
    });
    expect(asked).toStrictEqual([call]);
    expect(decided).toEqual([]);
  });

  it("without the refusal's reason, the reason says so plainly", () => {
    const outcome = now(request({ refused: refusedWith(undefined, []) }));
    expect(outcome).toStrictEqual({
      kind: "deny",
      by: "approval",
      call: BOB,
      reason: "already refused in this run; do not ask for it again",
    });
  });
});

describe("gate(): the call in the outcome", () => {
  const nested = '{ "to" : "bob", "cc": ["ann", "joe"] }';

  it("is frozen, its args deeply frozen, and rawArgs is the model's text as sent", () => {
    const outcome = now(
      request({ part: { type: "tool-call", id: "c1", name: "send", args: nested } }),
    );
    expect(outcome.kind).toBe("allow");
    const { call } = outcome as Extract<GateOutcome, { kind: "allow" }>;
    expect(call).toStrictEqual(callWith({ to: "bob", cc: ["ann", "joe"] }, nested));
    expect(Object.isFrozen(call)).toBe(true);
    expect(Object.isFrozen(call.args)).toBe(true);
    expect(Object.isFrozen((call.args as { cc: string[] }).cc)).toBe(true);
  });

  it("a hook's rewrite is copied and deeply frozen: the hook cannot change it afterwards", () => {
    const rewrite = { to: "eve", cc: ["ann"] };
    const outcome = now(
      request({
        part: { type: "tool-call", id: "c1", name: "send", args: nested },
        hooks: [hook({ args: rewrite }), hook({ block: "no" })],
      }),
    );
    rewrite.cc.push("mallory");
    rewrite.to = "mallory";
    expect(outcome).toStrictEqual({
      kind: "block",
      by: "hook:1",
      call: callWith({ to: "eve", cc: ["ann"] }, nested),
      message: "no",
    });
    const { call } = outcome as Extract<GateOutcome, { kind: "block" }>;
    expect(call.args).not.toBe(rewrite);
    expect(Object.isFrozen(call)).toBe(true);
    expect(Object.isFrozen(call.args)).toBe(true);
    expect(Object.isFrozen((call.args as { cc: string[] }).cc)).toBe(true);
  });
});

const VERDICT_KEYS = "`stop`, `stopReason`, `block`, `confirm`, `args`, `result`";
const DECISION_ANSWERS = '"ALLOW", "DENY", "NEEDS_APPROVAL", { decision, reason? } or undefined';

describe("gate(): fails closed", () => {
  it("a hook that throws: HookError naming the hook, the original as cause; nothing after it is asked", () => {
    const never = untouchable();
    const boom = new Error("boom");
    const error = thrownBy(
      request({
        hooks: [
          hook(undefined),
          () => {
            throw boom;
          },
          ...never.hooks,
        ],
        policy: never.policy,
        refused: never.refused,
      }),
    );
    expect(error).toBeInstanceOf(HookError);
    expect(error).toMatchObject({
      message: "pre-call hook 1 (preToolCall[1]) threw on tool send: boom",
      hookIndex: 1,
      toolName: "send",
      toolCallId: "c1",
      cause: boom,
    });
    expect(never.calls).toEqual([]);
  });

  it("a hook that rejects: the gate rejects with HookError naming the hook", async () => {
    const boom = new Error("later boom");
    const outcome = gate(request({ hooks: [() => Promise.reject(boom)] }));
    expect(outcome).toBeInstanceOf(Promise);
    const error = await (outcome as Promise<GateOutcome>).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(error).toMatchObject({
      message: "pre-call hook 0 (preToolCall[0]) threw on tool send: later boom",
      hookIndex: 0,
      cause: boom,
    });
  });

  it("a malformed verdict is a HookError naming the hook and the problem, never a pass", () => {
    const cases: [unknown, string][] = [
      [
        { deny: true },
        `returned a verdict with the unknown key \`deny\` (did you mean block?); a verdict has only ${VERDICT_KEYS}`,
      ],
      ["block", `returned string; return undefined or a plain verdict object with ${VERDICT_KEYS}`],
      [null, `returned null; return undefined or a plain verdict object with ${VERDICT_KEYS}`],
      [{ confirm: "yes" }, 'returned `confirm: "yes"`; `confirm` must be a boolean'],
    ];
    for (const [answer, problem] of cases) {
      const never = untouchable();
      const error = thrownBy(
        request({
          hooks: [hook(undefined), hook(undefined), () => answer as never, ...never.hooks],
          policy: never.policy,
          refused: never.refused,
        }),
      );
      expect(error).toBeInstanceOf(HookError);
      expect(error).toMatchObject({
        message: `pre-call hook 2 (preToolCall[2]) ${problem} (tool send); the call did not run`,
        hookIndex: 2,
        toolName: "send",
      });
      expect(never.calls).toEqual([]);
    }
  });

  it("a rewrite the schema rejects is a HookError, not an invalid call", () => {
    const never = untouchable();
    const error = thrownBy(
      request({
        hooks: [hook({ args: { to: 7 } }), ...never.hooks],
        policy: never.policy,
        refused: never.refused,
      }),
    );
    expect(error).toBeInstanceOf(HookError);
    expect(error).toMatchObject({
      message:
        "pre-call hook 0 (preToolCall[0]) rewrote the args of send into args its schema rejects: to: Invalid input: expected string, received number; the call did not run",
      hookIndex: 0,
    });
    expect(never.calls).toEqual([]);
  });

  it("decideToolCall that throws is a PolicyError naming it and the tool, the original as cause", () => {
    const nope = new Error("nope");
    const error = thrownBy(
      request({
        policy: {
          decideToolCall: () => {
            throw nope;
          },
        },
      }),
    );
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      message: "decideToolCall (tool send) threw: nope",
      callback: "decideToolCall",
      toolName: "send",
      cause: nope,
    });
  });

  it("decideToolCall answering garbage is a PolicyError, also behind a hook's confirm", () => {
    const cases: [unknown, string][] = [
      ["allow", '"allow"'],
      [{ decision: "MAYBE" }, '{"decision":"MAYBE"}'],
      [{ decision: "ALLOW", reason: 3 }, '{"decision":"ALLOW","reason":3}'],
      [true, "true"],
    ];
    for (const [answer, shown] of cases) {
      for (const hooks of [[], [hook({ confirm: false })]]) {
        const error = thrownBy(
          request({ hooks, policy: { decideToolCall: () => answer as never } }),
        );
        expect(error).toBeInstanceOf(PolicyError);
        expect(error).toMatchObject({
          message: `decideToolCall (tool send) returned ${shown}; return ${DECISION_ANSWERS}`,
          callback: "decideToolCall",
        });
      }
    }
  });

  it("a needsApproval function answering a non-boolean is a PolicyError", async () => {
    const withAnswer = (answer: unknown) =>
      tool({
        name: "send",
        input: z.object({ to: z.string() }),
        needsApproval: () => answer as boolean,
        execute: () => "",
      }) as Tool<undefined>;
    const ctx = () => ({}) as ToolContext<undefined>;
    const error = thrownBy(request({ tool: withAnswer("yes"), context: ctx }));
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      message: 'needsApproval (tool send) returned "yes"; return true or false',
      callback: "needsApproval",
      toolName: "send",
    });
    const later = gate(request({ tool: withAnswer(Promise.resolve(1)), context: ctx }));
    expect(later).toBeInstanceOf(Promise);
    const rejected = await (later as Promise<GateOutcome>).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(PolicyError);
    expect(rejected).toMatchObject({
      message: "needsApproval (tool send) returned 1; return true or false",
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Sync and async twins: the same request with one callback made async answers the same, later.
// ---------------------------------------------------------------------------------------------

/**
 * Makes a callback of the request sync or async. Each case wraps its callbacks with `lift`;
 * the table runs the case once all sync, then once per callback with only that one async.
 */
type Lift = <F extends (...args: any[]) => any>(fn: F) => F;

interface TwinCase {
  name: string;
  build: (lift: Lift) => Partial<Request>;
}

const twinCases: TwinCase[] = [
  {
    name: "hooks go on, the last confirms",
    build: (lift) => ({ hooks: [lift(() => undefined), lift(() => ({ confirm: true }))] }),
  },
  {
    name: "a rewrite, then the policy allows with a reason",
    build: (lift) => ({
      hooks: [lift(() => ({ args: { to: "eve" } }))],
      policy: { decideToolCall: lift(() => ({ decision: "ALLOW" as const, reason: "ok" })) },
    }),
  },
  {
    name: "a hook blocks after one that rewrote",
    build: (lift) => ({
      hooks: [lift(() => ({ args: { to: "eve" } })), lift(() => ({ block: "no" }))],
    }),
  },
  {
    name: "a hook stops with a reason",
    build: (lift) => ({
      hooks: [lift(() => undefined), lift(() => ({ stop: true, stopReason: "s" }))],
    }),
  },
  { name: "a hook answers a result", build: (lift) => ({ hooks: [lift(() => ({ result: 42 }))] }) },
  {
    name: "the policy denies over a confirm",
    build: (lift) => ({
      hooks: [lift(() => ({ confirm: false }))],
      policy: { decideToolCall: lift(() => "DENY" as const) },
    }),
  },
  {
    name: "needsApproval says yes, the policy defers",
    build: (lift) => ({
      tool: needing(lift(() => true)),
      context: () => ({}) as ToolContext<undefined>,
      policy: { decideToolCall: lift(() => undefined) },
    }),
  },
  {
    name: "needsApproval says no, a hook rewrote",
    build: (lift) => ({
      tool: needing(lift(() => false)),
      context: () => ({}) as ToolContext<undefined>,
      hooks: [lift(() => ({ args: { to: "eve" } }))],
    }),
  },
  {
    name: "a hook throws after one that went on",
    build: (lift) => ({
      hooks: [
        lift(() => undefined),
        lift(() => {
          throw new Error("boom");
        }),
      ],
    }),
  },
  {
    name: "a hook answers a malformed verdict",
    build: (lift) => ({ hooks: [lift(() => ({ deny: true }) as never)] }),
  },
  {
    name: "a hook rewrites into args the schema rejects",
    build: (lift) => ({ hooks: [lift(() => ({ args: { to: 1 } }))] }),
  },
  {
    name: "decideToolCall answers garbage after a confirm",
    build: (lift) => ({
      hooks: [lift(() => ({ confirm: true }))],
      policy: { decideToolCall: lift(() => "allow" as never) },
    }),
  },
  {
    name: "needsApproval answers a non-boolean",
    build: (lift) => ({
      tool: needing(lift(() => "yes" as never)),
      context: () => ({}) as ToolContext<undefined>,
    }),
  },
];

/** An outcome or an error, in a form `toEqual` compares (class and message for errors). */
type Settled = { outcome: GateOutcome } | { error: string; message: string };
const settledError = (error: unknown): Settled => ({
  error: (error as Error).constructor.name,
  message: (error as Error).message,
});

describe("gate(): sync and async twins", () => {
  it.each(twinCases)("$name", async ({ build }) => {
    // All sync: count the callbacks the gate reaches; the answer is not a promise.
    const reached: number[] = [];
    let slots = 0;
    const syncLift: Lift = (fn) => {
      const slot = slots++;
      return ((...args: unknown[]) => {
        reached.push(slot);
        return fn(...args);
      }) as typeof fn;
    };
    let sync: Settled;
    try {
      const outcome = gate(request(build(syncLift)));
      expect(outcome).not.toBeInstanceOf(Promise);
      sync = { outcome: outcome as GateOutcome };
    } catch (error) {
      sync = settledError(error);
    }
    expect(new Set(reached), "the gate reaches every callback of the case").toEqual(
      new Set(Array.from({ length: slots }, (_, i) => i)),
    );

    // One callback async at a time: a promise, settling the same way.
    for (let async = 0; async < slots; async++) {
      let slot = 0;
      const asyncLift: Lift = (fn) =>
        (slot++ === async ? async (...args: unknown[]) => fn(...args) : fn) as typeof fn;
      const answer = gate(request(build(asyncLift)));
      expect(answer, `callback ${async} async`).toBeInstanceOf(Promise);
      const later: Settled = await (answer as Promise<GateOutcome>).then(
        (outcome) => ({ outcome }),
        settledError,
      );
      expect(later, `callback ${async} async`).toEqual(sync);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the gate against a small independent model of the decision order.
// ---------------------------------------------------------------------------------------------

type ModelVerdict =
  | undefined
  | { confirm: boolean }
  | { block: string }
  | { stop: true }
  | { result: string }
  | { args: { to: string } };

type PolicyAnswer = "no policy" | "undefined" | "ALLOW" | "DENY" | "NEEDS_APPROVAL";

const verdictArb: fc.Arbitrary<ModelVerdict> = fc.oneof(
  fc.constant(undefined),
  fc.boolean().map((confirm) => ({ confirm })),
  fc.constant({ block: "blocked" }),
  fc.constant({ stop: true as const }),
  fc.constant({ result: "cached" }),
  fc.constantFrom("eve", "ann").map((to) => ({ args: { to } })),
);

/** What DESIGN sections 4 and 5 say the gate decides, and the args the call ends with. */
function predict(
  verdicts: ModelVerdict[],
  policy: PolicyAnswer,
  needsApproval: boolean,
): { kind: string; by: string; args: unknown } {
  let args: unknown = { to: "bob" };
  let confirm: { value: boolean; by: string } | undefined;
  for (const [index, verdict] of verdicts.entries()) {
    const by = `hook:${index}`;
    if (verdict === undefined) continue;
    if ("stop" in verdict) return { kind: "stop", by, args };
    if ("block" in verdict) return { kind: "block", by, args };
    if ("result" in verdict) return { kind: "result", by, args };
    if ("confirm" in verdict) confirm = { value: verdict.confirm, by };
    if ("args" in verdict) args = verdict.args;
  }
  if (policy === "DENY") return { kind: "deny", by: "policy", args };
  if (confirm) return { kind: confirm.value ? "needs-approval" : "allow", by: confirm.by, args };
  if (policy === "ALLOW") return { kind: "allow", by: "policy", args };
  if (policy === "NEEDS_APPROVAL") return { kind: "needs-approval", by: "policy", args };
  return needsApproval
    ? { kind: "needs-approval", by: "tool", args }
    : { kind: "allow", by: "default", args };
}

describe("gate(): property", () => {
  it("kind, by and the final args are what the decision order predicts, sync or async", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(verdictArb, { maxLength: 5 }),
        fc.constantFrom<PolicyAnswer>("no policy", "undefined", "ALLOW", "DENY", "NEEDS_APPROVAL"),
        fc.boolean(),
        fc.boolean(),
        async (verdicts, policy, needsApproval, async) => {
          const answer = <T>(value: T) => (async ? Promise.resolve(value) : value);
          const outcome = await gate(
            request({
              tool: needsApproval ? GUARDED : send,
              hooks: verdicts.map((verdict) => () => answer(verdict)),
              policy:
                policy === "no policy"
                  ? {}
                  : { decideToolCall: () => answer(policy === "undefined" ? undefined : policy) },
            }),
          );
          const expected = predict(verdicts, policy, needsApproval);
          expect(outcome.kind).toBe(expected.kind);
          expect((outcome as { by: string }).by).toBe(expected.by);
          expect((outcome as { call: ToolCall }).call.args).toEqual(expected.args);
        },
      ),
      { numRuns: runs(500) },
    );
  });
});
