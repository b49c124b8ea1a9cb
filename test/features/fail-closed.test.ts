/**
 * The gate cannot be bypassed by mistake: one form of args, fail closed on every bad answer,
 * bad input from the model, trusted state only. One test (at least) per bullet of the issue,
 * through the public API; each fails on the loop as it was before.
 */
import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  type LoopEvent,
  memoryRunStore,
  PolicyError,
  type PreToolCallHook,
  ProviderError,
  ResumeError,
  type RunResult,
  type RunStore,
  StoreError,
  ToolOutputError,
  ToolRetriesExceededError,
  tool,
} from "tollgate";
import { functionProvider, type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collectUnhandledRejections } from "../support/unhandled.js";

/** A payment tool whose schema transforms: the model sends euros, `execute` gets cents. */
function payments() {
  const paid: { cents: number; currency: string }[] = [];
  const pay = tool({
    name: "pay",
    input: z.object({
      amount: z.number().transform((euros) => Math.round(euros * 100)),
      currency: z.string(),
    }),
    needsApproval: true,
    idempotent: true,
    execute: async ({ amount, currency }, ctx) => {
      paid.push({ cents: amount, currency });
      if (ctx.toolName === "pay" && hang.on) await new Promise((r) => setTimeout(r, 10_000));
      return `paid ${amount} ${currency}`;
    },
  });
  const hang = { on: false };
  return { pay, paid, hang };
}

const payTurn: ScriptedTurn = {
  toolCalls: [{ id: "p1", name: "pay", args: { amount: 12.5, currency: "EUR" } }],
};
const lowerCurrency: PreToolCallHook = ({ args }) => {
  const { amount, currency } = args as { amount: number; currency: string };
  return { args: { amount, currency: currency.toLowerCase() } };
};

describe("one form of args, parsed once", () => {
  it("a transforming schema through a rewriting hook: hooks see the model's form, the tool gets one transform", async () => {
    const { pay, paid } = payments();
    const seen: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([payTurn, { text: "done" }]),
      tools: [withoutApproval(pay)],
      preToolCall: [
        (call) => {
          seen.push(call.args);
        },
        lowerCurrency,
        (call) => {
          seen.push(call.args);
        },
      ],
    });
    const result = await loop.run("pay");
    expect(seen).toEqual([
      { amount: 12.5, currency: "EUR" },
      { amount: 12.5, currency: "eur" },
    ]);
    expect(paid).toEqual([{ cents: 1250, currency: "eur" }]);
    expect(result.steps[0]!.calls[0]!.args).toEqual({ amount: 12.5, currency: "eur" });
  });

  it("an approval with edited args: the edit is validated in the model's form and transformed once", async () => {
    const { pay, paid } = payments();
    const make = () =>
      new AgentLoop({
        provider: scriptedProvider([payTurn, { text: "done" }]),
        tools: [pay],
        trustState: true,
      });
    const paused = await make().run("pay");
    expect(paused.pending).toEqual([
      expect.objectContaining({ args: { amount: 12.5, currency: "EUR" } }),
    ]);
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "done" }]),
      tools: [pay],
      trustState: true,
    });
    const resumed = await loop.resume(paused.state, {
      p1: { approve: true, args: { amount: 9.99, currency: "EUR" } },
    });
    expect(paid).toEqual([{ cents: 999, currency: "EUR" }]);
    expect(resumed.steps[0]!.calls[0]).toMatchObject({
      args: { amount: 9.99, currency: "EUR" },
      editedFrom: { amount: 12.5, currency: "EUR" },
    });
  });

  it("crash recovery of an edited approval runs the edited args, transformed once", async () => {
    const { pay, paid, hang } = payments();
    // Long enough that a loaded machine (`npm run mutate`'s coverage) still finds it live below.
    const store = memoryRunStore({ leaseMs: 250 });
    const make = (turns: ScriptedTurn[]) =>
      new AgentLoop({ provider: scriptedProvider(turns), tools: [pay], store });
    const paused = await make([payTurn]).run("pay", { runId: "pay-1" });
    hang.on = true;
    const controller = new AbortController();
    const crashed = make([]).resume(
      "pay-1",
      { p1: { approve: true, args: { amount: 3, currency: "NOK" } } },
      { signal: controller.signal },
    );
    await waitFor(() => paid.length === 1);
    controller.abort(new Error("the process died")); // its lease is not given up: it runs out
    await expect(crashed).rejects.toThrow("the process died");
    const checkpoint = await store.get("pay-1");
    expect(checkpoint).toMatchObject({ status: "running" });
    expect(checkpoint!.steps[0]!.calls[0]).toMatchObject({
      started: true,
      args: { amount: 3, currency: "NOK" },
    });
    await expect(make([]).resume("pay-1", {})).rejects.toThrow(/still running/);
    await sleep(300);
    hang.on = false;
    const recovered = await make([{ text: "recovered" }]).resume("pay-1", {});
    expect(recovered.status).toBe("completed");
    expect(paid).toEqual([
      { cents: 300, currency: "NOK" },
      { cents: 300, currency: "NOK" }, // idempotent: run again, with the human's edit
    ]);
    expect(paused.state.stateId).not.toBe(checkpoint!.stateId);
  });

  it("a listener that edits event.call.args, or replaces event.call, changes nothing that runs", async () => {
    const ran: unknown[] = [];
    const listenerErrors: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ name: "rm", args: { path: "/tmp/cache" } }] },
        { text: "ok" },
      ]),
      tools: [
        tool({ name: "rm", input: z.object({ path: z.string() }), execute: (a) => ran.push(a) }),
      ],
      onListenerError: (error) => listenerErrors.push(error),
      onEvent: (event) => {
        if (event.type !== "tool-decision" || !event.call) return;
        (event as { call: unknown }).call = { ...event.call, args: { path: "/" } };
      },
    });
    loop.on("tool-decision", (event) => {
      (event.call!.args as { path: string }).path = "/";
    });
    loop.on("model-response", (event) => {
      (event.response.parts[0] as { args: string }).args = '{"path":"/"}';
    });
    const result = await loop.run("clean up");
    expect(ran).toEqual([{ path: "/tmp/cache" }]);
    expect(result.steps[0]!.calls[0]!.args).toEqual({ path: "/tmp/cache" });
    // Events are frozen: each edit threw (to onListenerError), for both model responses too.
    expect(listenerErrors).toHaveLength(4);
    for (const error of listenerErrors) expect(error).toBeInstanceOf(TypeError);
  });

  it("a run-finish listener cannot change the result the caller gets", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "wire" }] }]),
      tools: [tool({ name: "wire", input: z.object({}), needsApproval: true, execute: () => 1 })],
      onListenerError: () => {},
    });
    loop.on("run-finish", (event) => {
      (event.result as { status: string }).status = "completed";
      event.result.steps.push(event.result.steps[0]!);
    });
    const result = await loop.run("go");
    expect(result.status).toBe("needs_approval");
    expect(result.steps).toHaveLength(1);
    expect(result.pending).toHaveLength(1);
  });

  it("run-finish shares frozen parts only when all they hold is frozen too", async () => {
    // The caller's own message: frozen on top, its parts array not.
    const parts = [{ type: "text" as const, text: "earlier answer" }];
    const earlier = Object.freeze({ role: "assistant" as const, parts });
    const listenerErrors: unknown[] = [];
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "done" }]),
      onListenerError: (error) => listenerErrors.push(error),
    });
    let seen: unknown;
    loop.on("run-finish", (event) => {
      seen = event.result.messages[1];
      const message = event.result.messages[1] as { parts: { text: string }[] };
      message.parts.push({ text: "injected" });
    });
    const result = await loop.run([{ role: "user", content: "hi" }, earlier]);
    expect(seen).not.toBe(earlier);
    expect(seen).toEqual(earlier);
    expect(listenerErrors).toHaveLength(1);
    expect(listenerErrors[0]).toBeInstanceOf(TypeError);
    expect(parts).toHaveLength(1);
    expect(result.messages[1]).toBe(earlier);
  });

  it("a hook that changes the args in place instead of returning them fails closed", async () => {
    const { pay, paid } = payments();
    const loop = new AgentLoop({
      provider: scriptedProvider([payTurn]),
      tools: [withoutApproval(pay)],
      preToolCall: [
        ({ args }) => {
          (args as { amount: number }).amount = 1_000_000;
        },
      ],
    });
    const error = await loop.run("pay").catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(paid).toEqual([]);
  });
});

describe("fail closed on every malformed answer from user code", () => {
  const send = () => {
    const ran: string[] = [];
    const t = tool({
      name: "send",
      input: z.object({ to: z.string() }),
      execute: ({ to }) => {
        ran.push(to);
        return "sent";
      },
    });
    return { t, ran };
  };
  const oneCall = (options: Partial<AgentLoopOptions>, tools = [send()]) => {
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ id: "c1", name: "send", args: { to: "bob" } }] },
        { text: "done" },
      ]),
      tools: tools.map((s) => s.t),
      ...options,
    });
    return loop.run("go");
  };

  it.each([
    [{ deny: true }, /unknown key `deny` \(did you mean block\?\)/],
    [{ decision: "DENY" }, /unknown key `decision`.*policy\.decideToolCall/],
    [["block"], /returned array/],
    [{ blocked: true }, /unknown key `blocked` \(did you mean block\?\)/],
    [{ confirm: null }, /`confirm: null`; `confirm` must be a boolean/],
    [{ confirm: "yes" }, /`confirm` must be a boolean/],
    [{ stop: 1 }, /`stop` must be a boolean/],
    [{ block: 0 }, /`block` must be a boolean or a string/],
    [null, /returned null/],
    [42, /returned number/],
    [new (class Verdict {})(), /returned a Verdict instance \(not a plain object\)/],
  ])(
    "a hook verdict %j rejects with HookError naming the hook, the tool and the problem",
    async (verdict, problem) => {
      const tools = [send()];
      const error = await oneCall(
        { preToolCall: [() => undefined, () => verdict as never] },
        tools,
      ).catch((e) => e);
      expect(error).toBeInstanceOf(HookError);
      expect(error.message).toMatch(/pre-call hook 1 /);
      expect(error.message).toMatch(/tool send/);
      expect(error.message).toMatch(problem);
      expect(error).toMatchObject({ hookIndex: 1, toolName: "send", toolCallId: "c1" });
      expect(error.messages.at(-1)).toMatchObject({ role: "tool" }); // the transcript stays whole
      expect(tools[0]!.ran).toEqual([]);
    },
  );

  it('{ block: "" } blocks with the default message; a verdict\'s getter that throws is a HookError', async () => {
    const tools = [send()];
    const result = await oneCall({ preToolCall: [() => ({ block: "" })] }, tools);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "block",
      result: { output: "the call to send was blocked", isError: true },
    });
    const throwing = {
      get block(): boolean {
        throw new Error("getter failed");
      },
    };
    await expect(oneCall({ preToolCall: [() => throwing] }, tools)).rejects.toThrow(HookError);
    expect(tools[0]!.ran).toEqual([]);
  });

  it("unknown option keys throw a TypeError with a did-you-mean; a gate is never switched off by a typo", async () => {
    const provider = scriptedProvider([]);
    const hook: PreToolCallHook = () => ({ block: true });
    expect(() => new AgentLoop({ provider, preToolCalls: [hook] } as never)).toThrow(
      /unknown option `preToolCalls`; did you mean `preToolCall`\?/,
    );
    expect(() => new AgentLoop({ provider, policies: {} } as never)).toThrow(
      /unknown option `policies`; did you mean `policy`\?/,
    );
    expect(() => new AgentLoop({ provider, tool: [] } as never)).toThrow(/did you mean `tools`\?/);
    expect(() => new AgentLoop({ provider, policy: () => "DENY" } as never)).toThrow(
      /`policy` is an object of methods, not a function/,
    );
    expect(
      () => new AgentLoop({ provider, policy: { decideToolcall: () => "DENY" } } as never),
    ).toThrow(/unknown option `decideToolcall`; did you mean `decideToolCall`\?/);
    expect(() => new AgentLoop({ provider, preToolCall: hook } as never)).toThrow(
      /preToolCall: \[yourHook\]/,
    );
    expect(() => new AgentLoop({ provider, argsLimits: { maxDepht: 3 } } as never)).toThrow(
      /did you mean `maxDepth`\?/,
    );
    const loop = new AgentLoop({ provider });
    await expect(loop.run("x", { runid: "r" } as never)).rejects.toThrow(
      /unknown option `runid`; did you mean `runId`\?/,
    );
    await expect(loop.resume("r", {}, { signl: undefined } as never)).rejects.toThrow(
      /did you mean `signal`\?/,
    );
  });

  it.each([
    [
      "decideToolCall throws",
      { decideToolCall: () => boom() },
      /decideToolCall \(tool send\) threw: boom/,
    ],
    [
      "decideToolCall answers garbage",
      { decideToolCall: () => "MAYBE" },
      /decideToolCall \(tool send\) returned "MAYBE"/,
    ],
    [
      "decideToolCall answers an unknown key",
      { decideToolCall: () => ({ decision: "ALLOW", why: 1 }) },
      /returned/,
    ],
    ["decideToolCall answers null", { decideToolCall: () => null }, /returned null/],
    ["prepareStep throws", { prepareStep: () => boom() }, /prepareStep threw: boom/],
    [
      "prepareStep answers a typo",
      { prepareStep: () => ({ tool: ["send"] }) },
      /prepareStep returned/,
    ],
    ["endsRun throws", { endsRun: () => boom() }, /endsRun \(tool send\) threw: boom/],
    [
      "endsRun answers 1",
      { endsRun: () => 1 },
      /endsRun \(tool send\) returned 1; return true or false/,
    ],
    [
      "executeTool throws on its own",
      { executeTool: () => boom() },
      /executeTool \(tool send\) threw: boom/,
    ],
  ])(
    "%s: PolicyError naming the callback and the tool, with the cause and the transcript",
    async (_name, policy, message) => {
      const error = await oneCall({ policy: policy as never }).catch((e) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect(error.message).toMatch(message);
      expect(Array.isArray(error.messages)).toBe(true);
    },
  );

  it("needsApproval that throws or answers a non-boolean is a PolicyError; nothing of the step runs", async () => {
    const ran: string[] = [];
    const make = (needsApproval: () => unknown) =>
      new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: [{ name: "ok" }, { name: "careful" }] },
          { text: "x" },
        ]),
        tools: [
          tool({ name: "ok", input: z.object({}), execute: () => ran.push("ok") }),
          tool({
            name: "careful",
            input: z.object({}),
            needsApproval: needsApproval as never,
            execute: () => ran.push("careful"),
          }),
        ],
      }).run("go");
    const threw = await make(() => boom()).catch((e) => e);
    expect(threw).toBeInstanceOf(PolicyError);
    expect(threw).toMatchObject({ callback: "needsApproval", toolName: "careful" });
    expect(threw.cause).toBeInstanceOf(Error);
    await expect(make(() => "yes")).rejects.toThrow(
      /needsApproval \(tool careful\) returned "yes"/,
    );
    expect(ran).toEqual([]);
  });

  it("what a tool throws through executeTool stays the tool's error; a RetryError too", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "flaky" }] }, { text: "x" }]),
      tools: [
        tool({
          name: "flaky",
          input: z.object({}),
          execute: () => {
            throw new Error("disk full");
          },
        }),
      ],
      policy: { executeTool: ({ tool: t, args, ctx }) => Promise.resolve(t.execute(args, ctx)) },
    });
    const result = await loop.run("go");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "disk full", isError: true });
  });

  it("thrown non-Errors never escape as another error", async () => {
    const nullProto = Object.create(null);
    const badToString = {
      toString() {
        throw new Error("no");
      },
    };
    for (const thrown of [nullProto, badToString, "plain string", undefined]) {
      const error = await oneCall({
        policy: {
          decideToolCall: () => {
            throw thrown;
          },
        },
      }).catch((e) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect(error.cause).toBe(thrown);
      expect(typeof error.message).toBe("string");
      const hookError = await oneCall({
        preToolCall: [
          () => {
            throw thrown;
          },
        ],
      }).catch((e) => e);
      expect(hookError).toBeInstanceOf(HookError);
    }
  });

  describe("a store that fails", () => {
    const unhandled = collectUnhandledRejections();

    it("a write failing while calls run in parallel rejects the run with StoreError, never an unhandled rejection", async () => {
      const inner = memoryRunStore();
      let puts = 0;
      const store: RunStore = {
        ...inner,
        put: async (state, lease) => {
          puts++;
          if (puts >= 3) throw new Error("disk gone");
          return inner.put(state, lease);
        },
      };
      const slow = (name: string, ms: number) =>
        tool({ name, input: z.object({}), execute: () => sleep(ms).then(() => name) });
      const loop = new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: [{ name: "a" }, { name: "b" }, { name: "c" }] },
          { text: "x" },
        ]),
        tools: [slow("a", 5), slow("b", 10), slow("c", 15)],
        store,
      });
      const error = await loop.run("go").catch((e) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toMatch(/put\(\) failed: disk gone/);
      expect(error.cause).toBeInstanceOf(Error);
      await sleep(30);
      expect(unhandled).toEqual([]);
    });

    it("garbage answers from a store are StoreErrors", async () => {
      const inner = memoryRunStore();
      const loop = (store: RunStore) =>
        new AgentLoop({
          provider: scriptedProvider([{ text: "x" }]),
          store,
        }).run("go");
      await expect(
        loop({ ...inner, acquire: async () => ({ token: "1" }) as never }),
      ).rejects.toThrow(/acquire\(\) answered .* answer \{ runId, token, ttlMs \} or undefined/);
      await expect(loop({ ...inner, put: async () => "yes" as never })).rejects.toThrow(
        /put\(\) answered "yes"; answer true or false/,
      );
      expect(
        () => new AgentLoop({ provider: scriptedProvider([]), store: { get() {} } as never }),
      ).toThrow(/store` is missing acquire\(\), renew\(\), put\(\), release\(\), claim\(\)/);
    });
  });
});

describe("bad input from the model", () => {
  const echo = () => {
    const got: unknown[] = [];
    const schemaless = tool({
      name: "echo",
      input: z.object({ name: z.string() }).passthrough(),
      execute: (args) => {
        got.push(args);
        return "ok";
      },
    });
    return { schemaless, got };
  };
  const runArgs = async (args: string, options: Partial<AgentLoopOptions> = {}) => {
    const { schemaless, got } = echo();
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "echo", args }] }, { text: "x" }]),
      tools: [schemaless],
      ...options,
    });
    const result = await loop.run("go");
    return { got, result, output: result.steps[0]!.calls[0]!.result!.output };
  };

  it("drops __proto__ and constructor.prototype keys, spelled out or escaped", async () => {
    const { got } = await runArgs(
      '{"name":"x","__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":1}},"\\u005f_proto__":{"y":1}}',
    );
    expect(got).toHaveLength(1);
    const args = got[0] as Record<string, unknown>;
    expect(Object.hasOwn(args, "__proto__")).toBe(false);
    expect((args as { isAdmin?: boolean }).isAdmin).toBeUndefined();
    expect(args.constructor).toEqual({});
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });

  it("a __proto__ key in a tool's output is data a signature covers", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "fetch" }, { id: "w", name: "wire" }] }]),
      tools: [
        tool({
          name: "fetch",
          input: z.object({}),
          execute: () => JSON.parse('{"__proto__":{"a":1}}'),
        }),
        tool({ name: "wire", input: z.object({}), needsApproval: true, execute: () => "wired" }),
      ],
      signingKey: "k",
      allowReplay: true,
    });
    const paused = await loop.run("go");
    const tampered = JSON.parse(JSON.stringify(paused.state));
    // An own key named "__proto__" (JSON.parse makes one): data, reached as data.
    Object.getOwnPropertyDescriptor(
      tampered.steps[0].calls[0].result.output,
      "__proto__",
    )!.value.a = 2;
    await expect(loop.resume(tampered, { w: { approve: true } })).rejects.toThrow(
      /signature does not match/,
    );
  });

  it("args over the size or depth limit are an invalid-args result naming the limit, never a crash", async () => {
    const big = await runArgs(JSON.stringify({ name: "x".repeat(1_100_000) }), { maxRetries: 1 });
    expect(big.output).toMatch(
      /invalid arguments for tool echo: they are larger than the limit of 1000000 bytes/,
    );
    const deep = await runArgs(`{"name":"x","n":${"[".repeat(10_000)}${"]".repeat(10_000)}}`);
    expect(deep.output).toMatch(/nested deeper than the limit of 64 levels/);
    expect(JSON.stringify(deep.result.state)).toContain("nested deeper");
    const tight = await runArgs('{"name":"x","n":[[1]]}', { argsLimits: { maxDepth: 2 } });
    expect(tight.output).toMatch(/limit of 2 levels/);
    expect(big.got).toEqual([]);
  });

  it("a tool call without a name, without args text, or without an id", async () => {
    const { schemaless, got } = echo();
    const noName = await new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "", args: {} }] }, { text: "x" }]),
      tools: [schemaless],
    }).run("go");
    expect(noName.steps[0]!.calls[0]!.result!.output).toMatch(
      /the call came without a tool name; the tools you can call are: echo/,
    );
    const provider = functionProvider(() => ({
      parts: [{ type: "tool-call", id: "t", name: "echo" } as never],
      finishReason: "tool-calls",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    }));
    const error = await new AgentLoop({ provider, tools: [schemaless] }).run("go").catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/the tool call to "echo" has no `args` text/);
    const noId = functionProvider((_r, { step }) =>
      step === 0
        ? {
            parts: [{ type: "tool-call", name: "echo", args: '{"name":"a"}' } as never],
            finishReason: "tool-calls",
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          }
        : { text: "x" },
    );
    const result = await new AgentLoop({ provider: noId, tools: [schemaless] }).run("go");
    expect(result.steps[0]!.calls[0]!.toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    expect(got).toEqual([{ name: "a" }]);
  });

  it("outputs JSON cannot carry are error results naming the tool and the problem (ToolOutputError under throw)", async () => {
    const values: Record<string, unknown> = {
      bigint: { n: 1n },
      circular: (() => {
        const o: Record<string, unknown> = {};
        o.o = o;
        return o;
      })(),
      fn: () => 1,
      symbol: Symbol("s"),
      map: new Map([[1, 2]]),
      set: new Set([1]),
    };
    const tools = Object.entries(values).map(([name, value]) =>
      tool({ name, input: z.object({}), execute: () => value }),
    );
    const loop = (toolErrors: "continue" | "throw") =>
      new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: Object.keys(values).map((name) => ({ name })) },
          { text: "x" },
        ]),
        tools,
        toolErrors,
      });
    const result = await loop("continue").run("go");
    const outputs = result.steps[0]!.calls.map((call) => call.result!.output);
    expect(outputs).toEqual([
      "tool bigint returned a value JSON cannot carry: a BigInt at output.n (return it as a string or a number)",
      "tool circular returned a value JSON cannot carry: a circular reference at output.o",
      "tool fn returned a value JSON cannot carry: a function at output",
      "tool symbol returned a value JSON cannot carry: a symbol at output",
      "tool map returned a value JSON cannot carry: a Map (return Object.fromEntries(map) or an array) at output",
      "tool set returned a value JSON cannot carry: a Set (return an array) at output",
    ]);
    const error = await loop("throw")
      .run("go")
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolOutputError);
    expect(error).toMatchObject({ toolName: "bigint" });
  });
});

describe("only trusted state runs", () => {
  /** A run that pauses on `wire` after `read` was denied by the policy. */
  async function pausedWithDenial(options: Partial<AgentLoopOptions> = {}) {
    const ran: string[] = [];
    // One script for the whole conversation, whichever loop takes the next turn.
    const provider = scriptedProvider([
      {
        toolCalls: [
          { id: "d", name: "drop_db" },
          { id: "w", name: "wire", args: { to: "a" } },
        ],
      },
      { text: "done" },
    ]);
    const make = (extra: Partial<AgentLoopOptions> = {}) =>
      new AgentLoop({
        provider,
        tools: [
          tool({ name: "drop_db", input: z.object({}), execute: () => ran.push("drop_db") }),
          tool({
            name: "wire",
            input: z.object({ to: z.string() }),
            needsApproval: true,
            execute: ({ to }) => ran.push(`wire ${to}`),
          }),
        ],
        policy: { decideToolCall: ({ call }) => (call.name === "drop_db" ? "DENY" : undefined) },
        ...options,
        ...extra,
      });
    const paused = await make().run("go");
    return { paused, make, ran };
  }
  const flipDenial = (state: RunResult["state"]) => {
    const tampered = JSON.parse(JSON.stringify(state));
    const call = tampered.steps[0].calls[0];
    call.verdict = "allow";
    delete call.result;
    return tampered;
  };

  it("a damaged state is a ResumeError naming the path", async () => {
    const { paused, make } = await pausedWithDenial({ trustState: true });
    const damaged = (change: (s: Record<string, any>) => void) => {
      const copy = JSON.parse(JSON.stringify(paused.state));
      change(copy);
      return make().resume(copy, { w: { approve: true } });
    };
    await expect(damaged((s) => delete s.steps[0].calls)).rejects.toThrow(
      /damaged at steps\[0\]: .*"calls"/,
    );
    await expect(damaged((s) => (s.messages = null))).rejects.toThrow(/damaged at messages:/);
    await expect(damaged((s) => (s.denied = "x"))).rejects.toThrow(/damaged at denied:/);
    await expect(damaged((s) => (s.steps[0].calls[1].verdict = "maybe"))).rejects.toThrow(
      /damaged at steps\[0\]\.calls\[1\]\.verdict/,
    );
  });

  it("an unsigned state by value does not run as it is: flipping a denied call to allow never runs it", async () => {
    const { paused, make, ran } = await pausedWithDenial({ allowReplay: true });
    const tampered = flipDenial(paused.state);
    await expect(make().resume(tampered, { w: { approve: true } })).rejects.toThrow(
      /passed by value without a signature.*signingKey.*runId.*digest.*trustState: true/,
    );
    const digest = paused.pending![0]!.digest;
    await expect(make().resume(tampered, { w: { approve: true, digest } })).rejects.toThrow(
      /has verdict "allow" and no result|digest mismatch/,
    );
    expect(ran).toEqual([]);
    await make().resume(paused.state, { w: { approve: true, digest } });
    expect(ran).toEqual(["wire a"]);
  });

  it("digests bind a decision to its state: changed messages or a changed denial list are refused", async () => {
    const { paused, make, ran } = await pausedWithDenial({ allowReplay: true });
    const digest = paused.pending![0]!.digest;
    for (const change of [
      (s: Record<string, any>) => (s.messages[0].content = "wire everything"),
      (s: Record<string, any>) => s.denied.push({ toolName: "drop_db", args: "{}" }),
      (s: Record<string, any>) => (s.maxSteps = 99),
      (s: Record<string, any>) => (s.steps[0].calls[0].result.output = "it worked"),
    ]) {
      const tampered = JSON.parse(JSON.stringify(paused.state));
      change(tampered);
      await expect(make().resume(tampered, { w: { approve: true, digest } })).rejects.toThrow(
        /digest mismatch/,
      );
    }
    await expect(make().resume(paused.state, { w: { approve: true, digest: "" } })).rejects.toThrow(
      /`digest` must be the 64-hex digest/,
    );
    expect(ran).toEqual([]);
  });

  it("a digest from another run never approves a call with the same id, tool and args", async () => {
    const first = await pausedWithDenial();
    const second = await pausedWithDenial({ allowReplay: true });
    const foreign = first.paused.pending![0]!.digest;
    expect(second.paused.pending![0]!.args).toEqual(first.paused.pending![0]!.args);
    await expect(
      second.make().resume(second.paused.state, { w: { approve: true, digest: foreign } }),
    ).rejects.toThrow(/digest mismatch/);
    expect(second.ran).toEqual([]);
  });

  it("a loop with a signingKey refuses any state without a valid signature, whatever else is given", async () => {
    const { paused } = await pausedWithDenial({ trustState: true });
    const { make, ran } = await pausedWithDenial({
      signingKey: "k",
      trustState: true,
      allowReplay: true,
    });
    const digest = paused.pending![0]!.digest;
    await expect(make().resume(paused.state, { w: { approve: true, digest } })).rejects.toThrow(
      /not signed/,
    );
    await expect(
      make().resume({ ...paused.state, signature: "" }, { w: { approve: true } }),
    ).rejects.toThrow(/not a signature/);
    expect(ran).toEqual([]);
  });

  it("a signature covers messages, denied, retries and every call", async () => {
    const { paused, make } = await pausedWithDenial({ signingKey: "k", allowReplay: true });
    for (const change of [
      (s: Record<string, any>) => (s.messages[0].content = "x"),
      (s: Record<string, any>) => s.denied.push({ toolName: "x", args: "{}" }),
      (s: Record<string, any>) => (s.retries = { wire: 0 }),
      (s: Record<string, any>) => (s.runId = "another"),
      (s: Record<string, any>) => (s.steps[0].calls[0].verdict = "allow"),
    ]) {
      const tampered = JSON.parse(JSON.stringify(paused.state));
      change(tampered);
      await expect(make().resume(tampered, { w: { approve: true } })).rejects.toThrow(
        /signature does not match/,
      );
    }
  });

  it("with a store, resume(runId) resumes the server's own copy, without digests", async () => {
    const store = memoryRunStore();
    const { paused, make, ran } = await pausedWithDenial({ store });
    const result = await make().resume(paused.state.runId, { w: { approve: true } });
    expect(result.status).toBe("completed");
    expect(ran).toEqual(["wire a"]);
  });

  it("a state by value for a run the store never held resumes only signed or trusted, never by digests (a forged state)", async () => {
    const store = memoryRunStore();
    const { make, ran } = await pausedWithDenial({ store });
    // An attacker's own loop, without the gate, pauses a run of the same shape.
    const attacker = await pausedWithDenial({ policy: {} });
    const forged = attacker.paused;
    const digest = forged.pending![0]!.digest;
    await expect(make().resume(forged.state, { w: { approve: true, digest } })).rejects.toThrow(
      /store holds no state of run .* \(it was deleted, or never written here\).* resumes only with a valid signature/,
    );
    expect(ran).toEqual([]);
  });

  it("a paused run deleted from the store cannot be resumed, not even from a signed copy of its state", async () => {
    const store = memoryRunStore();
    const paid: string[] = [];
    const make = () =>
      new AgentLoop({
        provider: scriptedProvider([
          { toolCalls: [{ name: "pay", args: { invoice: "INV-1" }, id: "p1" }] },
          { text: "paid" },
        ]),
        tools: [
          tool({
            name: "pay",
            input: z.object({ invoice: z.string() }),
            needsApproval: true,
            execute: ({ invoice }) => {
              paid.push(invoice);
              return "paid";
            },
          }),
        ],
        store,
        signingKey: "k".repeat(32),
      });
    const paused = await make().run("pay INV-1", { runId: "deleted-run" });
    expect(paused.status).toBe("needs_approval");
    // The signed copy a browser or a queue still holds.
    const copy = structuredClone(paused.state);
    expect(await store.delete("deleted-run")).toBe(true);
    const error = await make()
      .resume(copy, { p1: { approve: true } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(paid).toEqual([]);
  });

  it("a new run() never writes over a run of the same id that waits for approval", async () => {
    const store = memoryRunStore();
    const { paused, make, ran } = await pausedWithDenial({ store });
    const error = await make()
      .run("something else", { runId: paused.state.runId })
      .catch((e) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/is paused, waiting for approval; resume it/);
    await make().resume(paused.state.runId, { w: { approve: true } });
    expect(ran).toEqual(["wire a"]);
  });

  it("says what is missing: no decisions, a JSON text instead of a state", async () => {
    const { paused, make } = await pausedWithDenial();
    await expect(make().resume(paused.state, {})).rejects.toThrow(/no decisions were given/);
    await expect(make().resume(JSON.stringify(paused.state), {})).rejects.toThrow(
      /got a JSON text; pass the state itself: loop.resume\(JSON.parse\(saved\), decisions\)/,
    );
  });

  it("a by-value state whose store holds it must be the store's copy: a tampered one is refused, and nothing runs", async () => {
    const store = memoryRunStore();
    const { paused, make, ran } = await pausedWithDenial({ store });
    const error = await make()
      .resume(flipDenial(paused.state), { w: { approve: true } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResumeError);
    expect((error as Error).message).toMatch(/it was changed after it was written/);
    expect(ran).toEqual([]);
    // The state as it was written still resumes.
    await make().resume(paused.state, { w: { approve: true } });
    expect(ran).toEqual(["wire a"]);
  });
});

describe("leases: one live owner per run", () => {
  it("resuming a running run is 'still running'; two live run()s with one runId: the second is refused", async () => {
    const store = memoryRunStore();
    let release: () => void = () => {};
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "wait" }] }, { text: "x" }]),
      tools: [
        tool({
          name: "wait",
          input: z.object({}),
          execute: () => new Promise<void>((r) => (release = r)),
        }),
      ],
      store,
    });
    const first = loop.run("go", { runId: "r1" });
    await waitFor(async () => (await store.get("r1"))?.status === "running");
    const busy = await loop.resume("r1", {}).catch((e) => e);
    expect(busy).toBeInstanceOf(ResumeError);
    expect(busy.message).toMatch(/run r1 is still running/);
    // A queue worker retries this one later: the run may pause or its lease run out.
    expect(busy.retryable).toBe(true);
    const second = await new AgentLoop({ provider: scriptedProvider([{ text: "y" }]), store })
      .run("go", { runId: "r1" })
      .catch((e) => e);
    expect(second).toBeInstanceOf(StoreError);
    expect(second.message).toMatch(/already running/);
    expect(second.retryable).toBe(true);
    release();
    await expect(first).resolves.toMatchObject({ status: "completed" });
    // Resuming it now is refused for good: nothing waits, and waiting will not change that.
    const done = await loop.resume("r1", {}).catch((e) => e);
    expect(done).toBeInstanceOf(ResumeError);
    expect(done.retryable).toBe(false);
    // Once it ended, its lease is given up: the id is free again.
    await expect(
      new AgentLoop({ provider: scriptedProvider([{ text: "z" }]), store }).run("go", {
        runId: "r1",
      }),
    ).resolves.toMatchObject({ status: "completed" });
  });

  it("a stale owner's later writes are refused (fencing): it stops, and the later steps do not run twice", async () => {
    const inner = memoryRunStore({ leaseMs: 30 });
    let renewals = true;
    const store: RunStore = {
      ...inner,
      renew: (lease) => (renewals ? inner.renew(lease) : new Promise(() => {})),
    };
    const modelCalls: string[] = [];
    const provider = (who: string) =>
      functionProvider((request) => {
        modelCalls.push(who);
        return request.messages.some((m) => m.role === "tool")
          ? { text: "done" }
          : { toolCalls: [{ id: "s", name: "slow" }] };
      });
    let finish: () => void = () => {};
    const slow = tool({
      name: "slow",
      input: z.object({}),
      idempotent: true,
      execute: () => new Promise<string>((r) => (finish = () => r("slow done"))),
    });
    const stale = new AgentLoop({ provider: provider("stale"), tools: [slow], store }).run("go", {
      runId: "f",
    });
    await waitFor(async () => (await inner.get("f"))?.status === "running");
    renewals = false; // the owner stalls: its lease runs out
    await sleep(50);
    const again = tool({
      name: "slow",
      input: z.object({}),
      idempotent: true,
      execute: () => "again",
    });
    const takeover = await new AgentLoop({
      provider: provider("takeover"),
      tools: [again],
      store,
    }).resume("f", {});
    expect(takeover.status).toBe("completed");
    finish(); // the stale owner wakes up and tries to write
    const error = await stale.catch((e) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/no longer holds its lease/);
    expect(modelCalls).toEqual(["stale", "takeover"]);
  });

  it("a run whose lease renewal is refused stops at once with StoreError (another process took it over)", async () => {
    const inner = memoryRunStore({ leaseMs: 30 });
    const store: RunStore = { ...inner, renew: async () => false };
    let settled = false;
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "slow" }] }, { text: "x" }]),
      tools: [
        tool({
          name: "slow",
          input: z.object({}),
          execute: (_a, ctx) =>
            new Promise((resolve) =>
              ctx.signal.addEventListener("abort", () => {
                settled = true;
                resolve("stopped");
              }),
            ),
        }),
      ],
      store,
    });
    const error = await loop.run("go").catch((e) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/lost its lease/);
    expect(settled).toBe(true); // the tool's signal aborted with the run
  });

  it("checkpoints list pending calls with digests", async () => {
    const store = memoryRunStore();
    let checkpoint: unknown;
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "r", name: "read" },
            { id: "w", name: "wire" },
          ],
        },
      ]),
      tools: [
        tool({
          name: "read",
          input: z.object({}),
          execute: async () => {
            checkpoint = await store.get("cp");
            return "read";
          },
        }),
        tool({ name: "wire", input: z.object({}), needsApproval: true, execute: () => "wired" }),
      ],
      store,
    });
    await loop.run("go", { runId: "cp" });
    expect(checkpoint).toMatchObject({
      status: "running",
      pending: [
        { toolCallId: "w", toolName: "wire", digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ],
    });
  });
});

describe("smaller, same spirit", () => {
  it("calls to tools that are not callable count per tool name; the error names the loop's maxRetries", async () => {
    const loop = (turns: ScriptedTurn[]) =>
      new AgentLoop({
        provider: scriptedProvider(turns),
        tools: [tool({ name: "ok", input: z.object({}), execute: () => "ok" })],
      }).run("go");
    const two = await loop([
      { toolCalls: [{ name: "ghost_a" }, { name: "ghost_b" }] },
      { text: "fine" },
    ]);
    expect(two.status).toBe("completed");
    const error = await loop([
      { toolCalls: [{ name: "ghost_a" }] },
      { toolCalls: [{ name: "ghost_a" }] },
    ]).catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect(error.message).toMatch(
      /tool "ghost_a", which is not available, more often than the loop's maxRetries \(1\)/,
    );
  });
});

describe("what a mutation audit found untested", () => {
  it("retries carry over a resume", async () => {
    const make = () =>
      new AgentLoop({
        provider: scriptedProvider([
          {
            toolCalls: [
              { name: "n", args: { v: "x" } },
              { id: "w", name: "wire" },
            ],
          },
          { toolCalls: [{ name: "n", args: { v: "y" } }] },
        ]),
        tools: [
          tool({ name: "n", input: z.object({ v: z.number() }), execute: () => "n" }),
          tool({ name: "wire", input: z.object({}), needsApproval: true, execute: () => "w" }),
        ],
        trustState: true,
      });
    const paused = await make().run("go");
    expect(paused.state.retries).toEqual({ n: 1 });
    const error = await make()
      .resume(paused.state, { w: { approve: true } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
  });

  it("a tool with timeoutMs still gets the run's abort", async () => {
    const controller = new AbortController();
    let aborted = false;
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "t" }] }]),
      tools: [
        tool({
          name: "t",
          input: z.object({}),
          timeoutMs: 10_000,
          execute: (_a, ctx) =>
            new Promise((resolve) =>
              ctx.signal.addEventListener("abort", () => {
                aborted = true;
                resolve("stopped");
              }),
            ),
        }),
      ],
    });
    const run = loop.run("go", { signal: controller.signal });
    await sleep(5);
    controller.abort(new Error("stop"));
    await expect(run).rejects.toThrow("stop");
    expect(aborted).toBe(true);
  });

  it("no tool starts after an abort during the checkpoint before it", async () => {
    const inner = memoryRunStore();
    const controller = new AbortController();
    let ran = false;
    const store: RunStore = {
      ...inner,
      put: async (state, lease) => {
        if (state.status === "running") {
          controller.abort(new Error("stop"));
          await sleep(5);
        }
        return inner.put(state, lease);
      },
    };
    const loop = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ name: "t" }] }]),
      tools: [tool({ name: "t", input: z.object({}), execute: () => (ran = true) })],
      store,
    });
    await expect(loop.run("go", { signal: controller.signal })).rejects.toThrow("stop");
    await sleep(10);
    expect(ran).toBe(false);
  });

  it("endsRun picks the first call in call order, not in completion order", async () => {
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "slow", name: "t", args: { ms: 20 } },
            { id: "fast", name: "t", args: { ms: 1 } },
          ],
        },
      ]),
      tools: [
        tool({
          name: "t",
          input: z.object({ ms: z.number() }),
          execute: ({ ms }) => sleep(ms).then(() => ms),
        }),
      ],
      policy: { endsRun: () => true },
    });
    const result = await loop.run("go");
    expect(result.endedBy?.id).toBe("slow");
  });

  it("an abandoned provider stream is closed", async () => {
    let closed = false;
    const provider = {
      name: "p",
      model: "m",
      generate: () => Promise.reject(new Error("unused")),
      async *stream() {
        try {
          yield { type: "text-delta" as const, text: "a" };
          await sleep(50);
          yield { type: "text-delta" as const, text: "b" };
        } finally {
          closed = true;
        }
      },
    };
    const events: LoopEvent["type"][] = [];
    for await (const event of new AgentLoop({ provider }).stream("go")) {
      events.push(event.type);
      if (event.type === "text-delta") break;
    }
    await waitFor(() => closed);
    expect(events).toContain("text-delta");
  });
});

/** A copy of a tool that needs no approval. */
function withoutApproval<T extends ReturnType<typeof tool>>(t: T): T {
  return Object.freeze({ ...t, needsApproval: false });
}

function boom(): never {
  throw new Error("boom");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(2);
  }
}
