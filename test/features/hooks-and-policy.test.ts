import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  type LoopEventOf,
  type Message,
  PolicyError,
  type PreToolCallHook,
  tool,
  toolset,
  UnknownToolError,
} from "tollgate";
import { type ScriptedToolCall, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const runs: string[] = [];
const send = tool({
  name: "send",
  input: z.object({ to: z.string(), times: z.number().default(1) }),
  execute: ({ to, times }) => {
    runs.push(`send ${to} x${times}`);
    return `sent to ${to}`;
  },
});
const read = tool({
  name: "read",
  input: z.object({}),
  execute: () => {
    runs.push("read");
    return "contents";
  },
});

/** Runs one step of the given calls (then a final answer) and returns the result and decisions. */
async function oneStep(calls: ScriptedToolCall[], options: Partial<AgentLoopOptions> = {}) {
  runs.length = 0;
  const decisions: LoopEventOf<"tool-decision">[] = [];
  const provider = scriptedProvider([{ toolCalls: calls }, { text: "done" }]);
  const loop = new AgentLoop({
    provider,
    tools: [send, read],
    ...options,
    onEvent: (e) => {
      if (e.type === "tool-decision") decisions.push(e);
    },
  });
  const result = await loop.run("go");
  const results = result.messages.flatMap((m: Message) => (m.role === "tool" ? m.results : []));
  return { result, decisions, results, ran: runs.slice() };
}

describe("pre-call hooks", () => {
  it("run in order, each seeing the args in the model's form as the hooks before it left them, validated again after a rewrite", async () => {
    const seen: unknown[] = [];
    const hooks: PreToolCallHook[] = [
      (call) => {
        seen.push(call.args);
        return { args: { to: "bob" } };
      },
      (call) => {
        seen.push(call.args);
      },
      (call) => {
        seen.push(call.args);
        return { args: { to: "carol", times: 2 } };
      },
    ];
    const { ran, decisions, result } = await oneStep([{ name: "send", args: { to: "alice" } }], {
      preToolCall: hooks,
    });
    // The model's form, completed: the schema's default (`times: 1`) is there for every hook,
    // after the model's args and after a rewrite that leaves it out.
    expect(seen).toEqual([
      { to: "alice", times: 1 },
      { to: "bob", times: 1 },
      { to: "bob", times: 1 },
    ]);
    expect(ran).toEqual(["send carol x2"]);
    expect(decisions[0]).toMatchObject({
      verdict: "allow",
      by: "default",
      call: { args: { to: "carol", times: 2 }, rawArgs: '{"to":"alice"}' },
    });
    expect(result.messages[1]).toMatchObject({ parts: [{ args: '{"to":"alice"}' }] });
    expect(result.steps[0]!.calls[0]!.args).toEqual({ to: "carol", times: 2 });
  });

  it("hooks get name, args, annotations, toolCallId, step, provider, model and deps", async () => {
    const infos: unknown[] = [];
    await oneStep([{ name: "read", id: "r1" }], {
      preToolCall: [
        (call) => {
          infos.push(call);
        },
      ],
      deps: { k: 1 },
    });
    expect(infos).toEqual([
      {
        name: "read",
        args: {},
        annotations: {},
        toolCallId: "r1",
        step: 0,
        provider: "scripted",
        model: "scripted",
        deps: { k: 1 },
      },
    ]);
  });

  it("stop ends the run: nothing of the step runs and every call gets a 'not run' result", async () => {
    const later: string[] = [];
    const { result, ran, results, decisions } = await oneStep(
      [{ name: "read" }, { name: "send", args: { to: "x" } }, { name: "read" }],
      {
        preToolCall: [
          (call) =>
            call.name === "send"
              ? { stop: true, stopReason: "budget spent", block: true, result: "r" }
              : undefined,
          (call) => {
            later.push(call.name);
          },
        ],
      },
    );
    expect(result.status).toBe("stopped");
    expect(result.stopReason).toBe("budget spent");
    expect(ran).toEqual([]);
    expect(later).toEqual(["read"]);
    expect(results.map((r) => r.output)).toEqual(
      Array(3).fill("not run: the run was stopped (budget spent)"),
    );
    expect(results.every((r) => r.isError)).toBe(true);
    expect(decisions.map((d) => [d.verdict, d.by])).toEqual([
      ["allow", "default"],
      ["stop", "hook:0"],
      ["stop", "hook:0"],
    ]);
    expect(result.messages.at(-1)).toMatchObject({ role: "tool" });
  });

  it("block wins over result; the model gets the block text, or a default message", async () => {
    const { results, ran, decisions } = await oneStep(
      [{ name: "send", args: { to: "a" } }, { name: "read" }],
      {
        preToolCall: [
          (call) =>
            call.name === "send" ? { block: "not to a", result: "ignored" } : { block: true },
        ],
      },
    );
    expect(ran).toEqual([]);
    expect(results).toMatchObject([
      { output: "not to a", isError: true },
      { output: expect.stringMatching(/blocked/), isError: true },
    ]);
    expect(decisions.map((d) => d.verdict)).toEqual(["block", "block"]);
  });

  it("result skips the tool; the model gets it as a normal result and later hooks do not run", async () => {
    let laterRan = false;
    const { results, ran, decisions } = await oneStep([{ name: "read" }], {
      preToolCall: [
        () => ({ result: { cached: true } }),
        () => {
          laterRan = true;
        },
      ],
    });
    expect(ran).toEqual([]);
    expect(laterRan).toBe(false);
    expect(results[0]).toMatchObject({ output: { cached: true }, isError: false });
    expect(decisions[0]).toMatchObject({ verdict: "result", by: "hook:0" });
  });

  it("a later confirm overrides an earlier one; confirm false overrides the tool's needsApproval and the policy's NEEDS_APPROVAL", async () => {
    const guarded = tool({
      name: "guarded",
      input: z.object({}),
      needsApproval: true,
      execute: () => "ran",
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "guarded" }] }, { text: "done" }]);
    const loop = new AgentLoop({
      provider,
      tools: [guarded],
      preToolCall: [() => ({ confirm: true }), () => ({ confirm: false })],
      policy: { decideToolCall: () => "NEEDS_APPROVAL" },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "allow", by: "hook:1" });
  });

  it("confirm true asks for approval; a policy DENY still wins over it", async () => {
    const asked = await oneStep([{ name: "read" }], { preToolCall: [() => ({ confirm: true })] });
    expect(asked.result.status).toBe("needs_approval");
    expect(asked.decisions[0]).toMatchObject({ verdict: "needs-approval", by: "hook:0" });
    const denied = await oneStep([{ name: "read" }], {
      preToolCall: [() => ({ confirm: false })],
      policy: { decideToolCall: () => ({ decision: "DENY", reason: "read-only day" }) },
    });
    expect(denied.ran).toEqual([]);
    expect(denied.decisions[0]).toMatchObject({
      verdict: "deny",
      by: "policy",
      reason: "read-only day",
    });
    expect(denied.results[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/denied: read-only day/),
    });
  });

  it("a throwing hook rejects the run with HookError and no tool of the step runs (fail closed)", async () => {
    const error = await oneStep([{ name: "read" }, { name: "send", args: { to: "x" } }], {
      preToolCall: [
        (call) => {
          if (call.name === "send") throw new Error("hook broke");
        },
      ],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(error).toMatchObject({
      hookIndex: 0,
      toolName: "send",
      message: expect.stringMatching(/hook broke/),
    });
    expect(error.cause).toEqual(new Error("hook broke"));
    expect(runs).toEqual([]);
    expect(error.messages.at(-1)).toMatchObject({
      role: "tool",
      results: [{ isError: true }, { isError: true }],
    });
  });

  it("an async hook that rejects fails closed too", async () => {
    const error = await oneStep([{ name: "read" }], {
      preToolCall: [
        async () => {
          throw new Error("later");
        },
      ],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(runs).toEqual([]);
  });

  it("rewritten args that fail the schema reject the run with HookError", async () => {
    const error = await oneStep([{ name: "send", args: { to: "x" } }], {
      preToolCall: [() => ({ args: { to: 42 } })],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(/to: .*expected string/);
    expect(runs).toEqual([]);
  });

  it("a hook returning something that is not a verdict fails closed", async () => {
    const error = await oneStep([{ name: "read" }], {
      preToolCall: [(() => "allow") as never],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
  });

  it("invalid and unavailable calls never reach the hooks", async () => {
    const seen: string[] = [];
    const { decisions } = await oneStep([{ name: "nope" }, { name: "send", args: "{bad" }], {
      preToolCall: [
        (call) => {
          seen.push(call.name);
        },
      ],
    });
    expect(seen).toEqual([]);
    expect(decisions.map((d) => [d.verdict, d.by])).toEqual([
      ["unavailable", "default"],
      ["invalid", "schema"],
    ]);
  });
});

describe("policy.decideToolCall", () => {
  it("gets the call, tool, needsApproval, step and deps; ALLOW / DENY / NEEDS_APPROVAL decide", async () => {
    const asked: unknown[] = [];
    const { decisions, ran, results, result } = await oneStep(
      [{ name: "read" }, { name: "send", args: { to: "a" } }, { name: "send", args: { to: "b" } }],
      {
        deps: "deps",
        policy: {
          decideToolCall: ({ call, tool: t, needsApproval, step, deps }) => {
            asked.push({ name: call.name, tool: t.name, needsApproval, step, deps });
            if (call.name === "read") return "ALLOW";
            return (call.args as { to: string }).to === "a"
              ? "DENY"
              : { decision: "NEEDS_APPROVAL", reason: "sends mail" };
          },
        },
      },
    );
    expect(asked).toEqual([
      { name: "read", tool: "read", needsApproval: false, step: 0, deps: "deps" },
      { name: "send", tool: "send", needsApproval: false, step: 0, deps: "deps" },
      { name: "send", tool: "send", needsApproval: false, step: 0, deps: "deps" },
    ]);
    expect(decisions.map((d) => [d.verdict, d.by, d.reason])).toEqual([
      ["allow", "policy", undefined],
      ["deny", "policy", undefined],
      ["needs-approval", "policy", "sends mail"],
    ]);
    expect(ran).toEqual(["read"]);
    expect(result.status).toBe("needs_approval");
    expect(results).toEqual([]);
    expect(result.pending).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: "send",
        args: { to: "b", times: 1 },
        reason: "sends mail",
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });

  it("undefined defers to the tool's needsApproval, then ALLOW", async () => {
    const careful = tool({
      name: "careful",
      input: z.object({ n: z.number() }),
      needsApproval: async ({ n }, ctx) => n > ctx.retry + 10,
      execute: () => "ran",
    });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "careful", args: { n: 1 } },
          { name: "careful", args: { n: 99 } },
        ],
      },
    ]);
    const result = await new AgentLoop({
      provider,
      tools: [careful],
      policy: { decideToolCall: () => undefined },
    }).run("go");
    expect(result.steps[0]!.calls.map((c) => [c.verdict, c.by])).toEqual([
      ["allow", "default"],
      ["needs-approval", "tool"],
    ]);
    expect(result.status).toBe("needs_approval");
  });

  it("the tool's needsApproval reaches the policy as a boolean", async () => {
    const careful = tool({
      name: "careful",
      input: z.object({}),
      needsApproval: true,
      execute: () => "ran",
    });
    const seen: boolean[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "careful" }] }, { text: "ok" }]);
    const result = await new AgentLoop({
      provider,
      tools: [careful],
      policy: {
        decideToolCall: ({ needsApproval }) => {
          seen.push(needsApproval);
          return "ALLOW";
        },
      },
    }).run("go");
    expect(seen).toEqual([true]);
    expect(result.status).toBe("completed");
  });

  it("a decision that is not one of the three rejects the run", async () => {
    await expect(
      oneStep([{ name: "read" }], { policy: { decideToolCall: () => "MAYBE" as never } }),
    ).rejects.toThrow(/decideToolCall \(tool read\) returned "MAYBE"/);
    expect(runs).toEqual([]);
  });

  it("a paused run: allowed calls of the step still run; the transcript ends with the assistant message; the state is JSON", async () => {
    const { result, ran } = await oneStep(
      [{ name: "read" }, { name: "send", args: { to: "z" }, id: "s1" }],
      {
        policy: {
          decideToolCall: ({ call }) => (call.name === "send" ? "NEEDS_APPROVAL" : undefined),
        },
      },
    );
    expect(ran).toEqual(["read"]);
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "contents" });
    expect(result.steps[0]!.calls[1]!.result).toBeUndefined();
    expect(result.pending).toEqual([
      {
        toolCallId: "s1",
        toolName: "send",
        args: { to: "z", times: 1 },
        digest: expect.any(String),
      },
    ]);
    expect(JSON.parse(JSON.stringify(result.state))).toMatchObject({
      status: "needs_approval",
      runId: result.state.runId,
    });
  });
});

describe("policy.endsRun", () => {
  it("ends the run after a successful call once the step's other calls are done; the first in call order is endedBy", async () => {
    const asked: string[] = [];
    const { result, ran } = await oneStep(
      [{ name: "send", args: { to: "a" } }, { name: "read" }, { name: "send", args: { to: "b" } }],
      {
        policy: {
          endsRun: ({ call, output, tools }) => {
            asked.push(
              `${call.name}:${JSON.stringify(output)}:${tools.map((t) => t.name).join("+")}`,
            );
            return call.name === "send";
          },
        },
      },
    );
    expect(result.status).toBe("ended_by_tool");
    expect(result.endedBy).toMatchObject({ name: "send", args: { to: "a" } });
    expect(ran).toEqual(["send a x1", "read", "send b x1"]);
    expect(asked).toEqual(['send:"sent to a":send+read']);
    expect(result.messages.at(-1)).toMatchObject({ role: "tool" });
  });

  it("is never asked for failed calls or hook results, and gets the raw output", async () => {
    const asked: unknown[] = [];
    const raw = { when: new Date(0) };
    const dated = tool({ name: "dated", input: z.object({}), execute: () => raw });
    const failing = tool({
      name: "failing",
      input: z.object({}),
      execute: () => {
        throw new Error("x");
      },
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "failing" }, { name: "read" }, { name: "dated" }] },
      { text: "ok" },
    ]);
    await new AgentLoop({
      provider,
      tools: [dated, failing, read],
      preToolCall: [(call) => (call.name === "read" ? { result: "from hook" } : undefined)],
      policy: {
        endsRun: ({ output }) => {
          asked.push(output);
          return false;
        },
      },
    }).run("go");
    expect(asked).toEqual([raw]);
    expect(asked[0]).toBe(raw);
  });
});

describe("policy.decideToolCall's executed", () => {
  it("is a copy of the tools executed so far, in a short run and past 256 calls alike", async () => {
    // 300 steps of one `read` call: past the length where the copy is made only when read.
    const steps = 300;
    const turns: { toolCalls: ScriptedToolCall[] }[] = Array.from({ length: steps }, () => ({
      toolCalls: [{ name: "read" }],
    }));
    const provider = scriptedProvider([...turns, { text: "ok" }]);
    const lengths: number[] = [];
    const spreadsSee: number[] = [];
    await new AgentLoop({
      provider,
      tools: [read],
      maxSteps: steps + 1,
      policy: {
        decideToolCall: (args) => {
          lengths.push(args.executed.length);
          spreadsSee.push({ ...args }.executed.length);
          expect(args.executed.every((name) => name === "read")).toBe(true);
          args.executed.push("tampered");
          return "ALLOW";
        },
      },
    }).run("go");
    const oracle = Array.from({ length: steps }, (_, step) => step);
    expect(lengths).toEqual(oracle);
    expect(spreadsSee).toEqual(oracle);
  });
});

describe("policy.prepareStep", () => {
  it("gets the step index, a copy of the executed tools, and the toolset", async () => {
    const seen: { stepIndex: number; executed: string[]; names: string[] }[] = [];
    const provider = scriptedProvider([
      { toolCalls: [{ name: "read" }, { name: "send", args: { to: "a" } }] },
      { toolCalls: [{ name: "read" }] },
      { text: "ok" },
    ]);
    await new AgentLoop({
      provider,
      tools: [send, read],
      policy: {
        prepareStep: ({ stepIndex, executed, tools }) => {
          seen.push({ stepIndex, executed: executed.slice(), names: tools.names() });
          executed.push("tampered");
          return undefined;
        },
      },
    }).run("go");
    expect(seen).toEqual([
      { stepIndex: 0, executed: [], names: ["send", "read"] },
      { stepIndex: 1, executed: ["read", "send"], names: ["send", "read"] },
      { stepIndex: 2, executed: ["read", "send", "read"], names: ["send", "read"] },
    ]);
  });

  it("accepts tools, names or a Toolset; a hidden tool is not offered and never runs", async () => {
    for (const prepared of [[read], ["read"], toolset([read])]) {
      runs.length = 0;
      const provider = scriptedProvider([
        { toolCalls: [{ name: "send", args: { to: "x" } }, { name: "read" }] },
        { text: "ok" },
      ]);
      const result = await new AgentLoop({
        provider,
        tools: [send, read],
        policy: { prepareStep: () => prepared },
      }).run("go");
      expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["read"]);
      expect(runs).toEqual(["read"]);
      expect(result.steps[0]!.calls[0]).toMatchObject({
        verdict: "unavailable",
        result: { isError: true, output: expect.stringMatching(/^tool send is not available/) },
      });
    }
  });

  it("StepTools shows a stable set while narrowing what may run, and passes toolChoice", async () => {
    runs.length = 0;
    const provider = scriptedProvider([
      { toolCalls: [{ name: "send", args: { to: "x" } }, { name: "read" }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({
      provider,
      tools: [send, read],
      policy: {
        prepareStep: () => ({
          tools: ["send", "read"],
          callable: ["read"],
          toolChoice: { name: "read" },
        }),
      },
    }).run("go");
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["send", "read"]);
    expect(provider.requests[0]!.toolChoice).toEqual({ name: "read" });
    expect(result.steps[0]).toMatchObject({
      tools: ["send", "read"],
      callable: ["read"],
      toolChoice: { name: "read" },
    });
    expect(runs).toEqual(["read"]);
    expect(result.steps[0]!.calls[0]!.verdict).toBe("unavailable");
  });

  it("naming an unknown tool, or a callable tool that is not shown, rejects with UnknownToolError", async () => {
    const run = (prepareStep: () => never) =>
      new AgentLoop({
        provider: scriptedProvider([{ text: "x" }]),
        tools: [send, read],
        policy: { prepareStep },
      }).run("go");
    const unknown = await run(() => ["nope"] as never).catch((error) => error);
    expect(unknown).toBeInstanceOf(UnknownToolError);
    expect(unknown.messages).toEqual([{ role: "user", content: "go" }]);
    await expect(run(() => ({ tools: ["read"], callable: ["send"] }) as never)).rejects.toThrow(
      UnknownToolError,
    );
    await expect(
      run(() => ({ tools: ["read"], toolChoice: { name: "send" } }) as never),
    ).rejects.toThrow(UnknownToolError);
    await expect(run(() => 42 as never)).rejects.toThrow(PolicyError);
  });
});

describe("policy.executeTool", () => {
  it("replaces how allowed tools run, with the call, tool, callable tools, step, signal and ctx", async () => {
    const seen: unknown[] = [];
    const provider = scriptedProvider([
      { toolCalls: [{ name: "send", args: { to: "q" }, id: "e1" }] },
      { text: "ok" },
    ]);
    const result = await new AgentLoop({
      provider,
      tools: [send, read],
      policy: {
        executeTool: async ({ call, tool: t, tools, stepIndex, signal, ctx }) => {
          seen.push({
            call: call.name,
            tool: t.name,
            tools: tools.map((x) => x.name),
            stepIndex,
            signal: signal === ctx.signal,
            id: ctx.toolCallId,
          });
          return `wrapped ${await t.execute(call.args, ctx)}`;
        },
      },
    }).run("go");
    expect(seen).toEqual([
      { call: "send", tool: "send", tools: ["send", "read"], stepIndex: 0, signal: true, id: "e1" },
    ]);
    expect(result.steps[0]!.calls[0]!.result!.output).toBe("wrapped sent to q");
  });
});
