import fc from "fast-check";
import {
  AgentLoop,
  type AgentLoopOptions,
  HookError,
  type LoopEvent,
  type Message,
  type PostToolCallHook,
  type PostToolCallInfo,
  type ToolResult,
  tool,
} from "tollgate";
import { type ScriptedToolCall, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runs } from "../support/runs.js";

const SECRET = "sk-live-123";

/** A fetch tool whose page carries a secret; `fail` throws with the secret in the message. */
function agent(
  calls: ScriptedToolCall[] | null,
  options: Partial<AgentLoopOptions> = {},
  more: Parameters<typeof scriptedProvider>[0] = [{ text: "done" }],
) {
  const ran: string[] = [];
  const events: LoopEvent[] = [];
  const fetchPage = tool({
    name: "fetch_page",
    input: z.object({ url: z.string() }),
    execute: ({ url }) => {
      ran.push(url);
      return { url, body: `page ${url} key=${SECRET}` };
    },
  });
  const fail = tool({
    name: "fail",
    input: z.object({}),
    execute: () => {
      ran.push("fail");
      throw new Error(`upstream said ${SECRET}`);
    },
  });
  const slow = tool({
    name: "slow",
    input: z.object({}),
    sequential: true,
    execute: () => {
      ran.push("slow");
      return "slow done";
    },
  });
  const send = tool({
    name: "send",
    input: z.object({}),
    needsApproval: true,
    execute: () => {
      ran.push("send");
      return "sent";
    },
  });
  const provider = scriptedProvider(calls ? [{ toolCalls: calls }, ...more] : more);
  const loop = new AgentLoop({
    provider,
    tools: [fetchPage, fail, slow, send],
    trustState: true,
    ...options,
    onEvent: (event) => events.push(event),
  });
  return { loop, ran, events, provider };
}

const results = (messages: Message[]): ToolResult[] =>
  messages.flatMap((m) => (m.role === "tool" ? m.results : []));
const page = (id: string, url = "a") => ({ id, name: "fetch_page", args: { url } });

describe("post-call hooks: what they see and what they change", () => {
  it("run in order on every executed call, each seeing the output as the hooks before it left it; a replaced output is what the model, the transcript and the events get", async () => {
    const seen: PostToolCallInfo[] = [];
    const hooks: PostToolCallHook[] = [
      (info) => {
        seen.push(info);
        const { body } = info.output as { body: string };
        return { output: { body: body.replace(SECRET, "[redacted]") } };
      },
      (info) => {
        seen.push(info);
        return undefined;
      },
    ];
    const { loop, events, provider } = agent([page("c1")], {
      postToolCall: hooks,
      deps: { user: "u" },
    });
    const result = await loop.run("go");
    expect(seen.map((info) => info.output)).toEqual([
      { url: "a", body: `page a key=${SECRET}` },
      { body: "page a key=[redacted]" },
    ]);
    expect(seen[0]).toMatchObject({
      name: "fetch_page",
      args: { url: "a" },
      toolCallId: "c1",
      step: 0,
      provider: "scripted",
      model: "scripted",
      deps: { user: "u" },
      isError: false,
    });
    expect(Object.isFrozen(seen[0]!.output)).toBe(true);
    expect(results(result.messages)).toEqual([
      {
        toolCallId: "c1",
        toolName: "fetch_page",
        output: { body: "page a key=[redacted]" },
        isError: false,
      },
    ]);
    expect(JSON.stringify(provider.requests[1])).not.toContain(SECRET);
    expect(JSON.stringify(result.state)).not.toContain(SECRET);
    const toolResult = events.find((e) => e.type === "tool-result");
    expect(toolResult).toMatchObject({ output: { body: "page a key=[redacted]" } });
  });

  it("endsRun gets the value as the tool returned it; a replaced call still executed", async () => {
    const raws: unknown[] = [];
    const { loop } = agent([page("c1")], {
      postToolCall: [() => ({ output: "short" })],
      policy: {
        endsRun: ({ output }) => {
          raws.push(output);
          return true;
        },
      },
    });
    const result = await loop.run("go");
    expect(raws).toEqual([{ url: "a", body: `page a key=${SECRET}` }]);
    expect(result.status).toBe("ended_by_tool");
    expect(results(result.messages)[0]!.output).toBe("short");
  });

  it("a tool's error result passes the chain too (isError, its text); a replacement of an error's text must be a string", async () => {
    const seen: PostToolCallInfo[] = [];
    const { loop } = agent([{ id: "c1", name: "fail", args: {} }], {
      postToolCall: [
        (info) => {
          seen.push(info);
          return { output: (info.output as string).replace(SECRET, "***") };
        },
      ],
    });
    const result = await loop.run("go");
    expect(seen[0]).toMatchObject({ isError: true, output: `upstream said ${SECRET}` });
    expect(results(result.messages)).toEqual([
      { toolCallId: "c1", toolName: "fail", output: "upstream said ***", isError: true },
    ]);

    const bad = agent([{ id: "c1", name: "fail", args: {} }], {
      postToolCall: [() => ({ output: { redacted: true } })],
    });
    const error = await bad.loop.run("go").catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(
      /post-call hook 0 \(postToolCall\[0\]\) replaced the error text of tool fail with a value of type object/,
    );
    expect(JSON.stringify(error.messages)).not.toContain(SECRET);
  });

  it('`block` withholds the output: the model gets an error result with the text given, or a default one (also for block: ""); block wins over output; the blocked call is not a success', async () => {
    for (const [block, text] of [
      ["page withheld", "page withheld"],
      [true, "the output of fetch_page was blocked"],
      ["", "the output of fetch_page was blocked"],
    ] as const) {
      const asked: unknown[] = [];
      const { loop, provider } = agent([page("c1")], {
        postToolCall: [() => ({ block, output: "ignored" })],
        policy: {
          endsRun: ({ call }) => {
            asked.push(call.id);
            return false;
          },
        },
      });
      const result = await loop.run("go");
      expect(results(result.messages)).toEqual([
        { toolCallId: "c1", toolName: "fetch_page", output: text, isError: true },
      ]);
      expect(JSON.stringify(provider.requests[1])).not.toContain(SECRET);
      expect(asked).toEqual([]);
    }
  });

  it("`block: false` and keys set to undefined count as not given", async () => {
    const { loop } = agent([page("c1")], {
      postToolCall: [() => ({ block: false, stop: undefined, output: "kept" })],
    });
    const result = await loop.run("go");
    expect(results(result.messages)[0]).toMatchObject({ output: "kept", isError: false });
  });

  it("a block ends the chain: later hooks do not see the call", async () => {
    const later: string[] = [];
    const { loop } = agent([page("c1")], {
      postToolCall: [() => ({ block: "no" }), (info) => void later.push(info.toolCallId)],
    });
    await loop.run("go");
    expect(later).toEqual([]);
  });
});

describe("post-call hooks: stop", () => {
  it("ends the run after the step (status stopped, stopReason); the stopped call's output is withheld; no further model call", async () => {
    const { loop, provider, ran } = agent([page("c1")], {
      postToolCall: [() => ({ stop: true, stopReason: "injection found", block: "x" })],
    });
    const result = await loop.run("go");
    expect(result.status).toBe("stopped");
    expect(result.stopReason).toBe("injection found");
    expect(ran).toEqual(["a"]);
    expect(provider.requests).toHaveLength(1);
    expect(results(result.messages)).toEqual([
      {
        toolCallId: "c1",
        toolName: "fetch_page",
        output: "the output of fetch_page was withheld: the run was stopped (injection found)",
        isError: true,
      },
    ]);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("as a pre-call stop: calls of the step not yet started never run and get 'not run: the run was stopped'; calls running at the same time settle and are guarded; a call waiting for approval gets its result too; the first stopped call in call order names the stop", async () => {
    const seen: string[] = [];
    const { loop, ran } = agent(
      [
        page("c1", "a"),
        page("c2", "b"),
        { id: "c3", name: "send", args: {} },
        { id: "c4", name: "slow", args: {} },
      ],
      {
        postToolCall: [
          (info) => {
            seen.push(info.toolCallId);
            const url = (info.args as { url: string }).url;
            return { stop: true, stopReason: `saw ${url}` };
          },
        ],
      },
    );
    const result = await loop.run("go");
    expect(result.status).toBe("stopped");
    expect(result.stopReason).toBe("saw a");
    expect(ran).toEqual(["a", "b"]); // c1 and c2 ran together; slow (sequential, after them) never started
    expect(seen.sort()).toEqual(["c1", "c2"]);
    expect(results(result.messages).map((r) => [r.toolCallId, r.output, r.isError])).toEqual([
      ["c1", "the output of fetch_page was withheld: the run was stopped (saw a)", true],
      ["c2", "the output of fetch_page was withheld: the run was stopped (saw b)", true],
      ["c3", "not run: the run was stopped (saw a)", true],
      ["c4", "not run: the run was stopped (saw a)", true],
    ]);
    expect(result.pending).toBeUndefined();
  });

  it("stop wins over the final answer and over endsRun", async () => {
    const { loop } = agent([page("c1")], {
      postToolCall: [() => ({ stop: true })],
      policy: { endsRun: () => true },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("stopped");
    expect(result.stopReason).toBeUndefined();
    expect(results(result.messages)[0]!.output).toBe(
      "the output of fetch_page was withheld: the run was stopped",
    );
  });
});

describe("post-call hooks: fail closed", () => {
  const cases: [string, PostToolCallHook, RegExp][] = [
    [
      "an unknown key",
      () => ({ result: "x" }) as never,
      /unknown key `result` \(did you mean output\?\)/,
    ],
    [
      "a pre-call key",
      () => ({ args: {} }) as never,
      /unknown key `args` \(did you mean output \(the call already ran/,
    ],
    ["a near miss", () => ({ stp: true }) as never, /unknown key `stp` \(did you mean stop\?\)/],
    ["a wrong type", () => ({ stop: "yes" }) as never, /`stop: "yes"`; `stop` must be a boolean/],
    [
      "block of a wrong type",
      () => ({ block: 1 }) as never,
      /`block` must be a boolean or a string/,
    ],
    ["null", () => null as never, /returned null; return undefined or a plain verdict object/],
    ["an array", () => ["block"] as never, /returned array/],
    [
      "a throw",
      () => {
        throw new Error("guard down");
      },
      /threw on the output of tool fetch_page: guard down/,
    ],
    [
      "a rejection",
      () => Promise.reject(new Error("guard down")),
      /threw on the output of tool fetch_page: guard down/,
    ],
    [
      "an output JSON cannot carry",
      () => ({ output: { n: 1n } }),
      /replaced the output of tool fetch_page with a value JSON cannot carry: a BigInt at output\.n/,
    ],
  ];
  for (const [what, hook, message] of cases) {
    it(`${what} rejects the run with HookError; the output never reaches the model`, async () => {
      const { loop, provider, events } = agent([page("c1")], {
        postToolCall: [() => undefined, hook],
      });
      const error = await loop.run("go").catch((e) => e);
      expect(error).toBeInstanceOf(HookError);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/post-call hook 1 \(postToolCall\[1\]\)/);
      expect(error.message).toMatch(/the output did not reach the model/);
      expect(error).toMatchObject({ hookIndex: 1, toolName: "fetch_page", toolCallId: "c1" });
      expect(provider.requests).toHaveLength(1);
      expect(JSON.stringify(error.messages)).not.toContain(SECRET);
      expect(results(error.messages)).toEqual([
        {
          toolCallId: "c1",
          toolName: "fetch_page",
          output: "the output of fetch_page was withheld: a post-call hook failed",
          isError: true,
        },
      ]);
      expect(JSON.stringify(events.filter((e) => e.type !== "model-response"))).not.toContain(
        SECRET,
      );
    });
  }

  it("the chain's output is a frozen copy: a hook that edits it in place cannot change what the model reads", async () => {
    const { loop } = agent([page("c1")], {
      postToolCall: [
        (info) => {
          (info.output as { body: string }).body = "edited";
        },
      ],
    });
    const error = await loop.run("go").catch((e) => e);
    expect(error).toBeInstanceOf(HookError);
    expect(error.message).toMatch(/threw on the output of tool fetch_page/);
  });

  it("postToolCall is checked like preToolCall", () => {
    const provider = scriptedProvider([]);
    expect(() => new AgentLoop({ provider, postToolCall: (() => undefined) as never })).toThrow(
      "AgentLoop: `postToolCall` must be an array of hooks; write postToolCall: [yourHook]",
    );
    expect(() => new AgentLoop({ provider, postToolCall: ["x"] as never })).toThrow(
      "AgentLoop: `postToolCall` must be an array of functions",
    );
    expect(() => new AgentLoop({ provider, afterToolCall: [] } as never)).toThrow(/postToolCall/);
  });
});

describe("post-call hooks: events", () => {
  it("each guarded call gets one tool-post-decision before its tool-result (pass / output / block / stop, by post:<i> or default); tool-decision keeps the gate's verdict", async () => {
    const { loop, events } = agent([page("c1", "a"), page("c2", "b"), page("c3", "c")], {
      postToolCall: [
        (info) => (info.toolCallId === "c2" ? { output: "x" } : undefined),
        (info) => (info.toolCallId === "c3" ? { block: "no c" } : undefined),
      ],
    });
    await loop.run("go");
    const post = events.filter((e) => e.type === "tool-post-decision");
    expect(post.map((e) => [e.toolCallId, e.verdict, e.by, e.reason]).sort()).toEqual([
      ["c1", "pass", "default", undefined],
      ["c2", "output", "post:0", undefined],
      ["c3", "block", "post:1", "no c"],
    ]);
    for (const id of ["c1", "c2", "c3"]) {
      const types = events
        .filter((e) => "toolCallId" in e && e.toolCallId === id)
        .map((e) => e.type);
      expect(types).toEqual(["tool-call", "tool-decision", "tool-post-decision", "tool-result"]);
    }
    const decisions = events.filter((e) => e.type === "tool-decision");
    expect(decisions.map((e) => [e.verdict, e.by])).toEqual([
      ["allow", "default"],
      ["allow", "default"],
      ["allow", "default"],
    ]);
  });

  it("a stop's event names the hook and its reason; a loop without post-call hooks emits none", async () => {
    const stopped = agent([page("c1")], {
      postToolCall: [() => undefined, () => ({ stop: true, stopReason: "r" })],
    });
    await stopped.loop.run("go");
    expect(stopped.events.find((e) => e.type === "tool-post-decision")).toMatchObject({
      verdict: "stop",
      by: "post:1",
      reason: "r",
    });
    const plain = agent([page("c1")]);
    await plain.loop.run("go");
    expect(plain.events.some((e) => e.type === "tool-post-decision")).toBe(false);
  });

  it("calls that never execute (blocked before, denied, invalid) never reach the chain", async () => {
    const seen: string[] = [];
    const { loop } = agent(
      [
        page("c1"),
        { id: "c2", name: "fetch_page", args: {} },
        { id: "c3", name: "nope", args: {} },
      ],
      {
        preToolCall: [(call) => (call.toolCallId === "c1" ? { block: true } : undefined)],
        postToolCall: [(info) => void seen.push(info.toolCallId)],
        maxRetries: 5,
      },
    );
    await loop.run("go");
    expect(seen).toEqual([]);
  });
});

describe("post-call hooks and resume", () => {
  it("a call executed before the pause passed the chain (the state holds the guarded output); the approved call executed on resume passes it too; none is guarded twice", async () => {
    const seen: string[] = [];
    const options = {
      postToolCall: [
        (info: PostToolCallInfo) => {
          seen.push(info.toolCallId);
          return { output: `guarded ${info.toolCallId}` };
        },
      ],
    };
    const first = agent([page("c1"), { id: "c2", name: "send", args: {} }], options);
    const paused = await first.loop.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(seen).toEqual(["c1"]);
    const saved = JSON.stringify(paused.state);
    expect(saved).not.toContain(SECRET);
    expect(saved).toContain("guarded c1");
    const second = agent(null, options);
    const resumed = await second.loop.resume(JSON.parse(saved), { c2: { approve: true } });
    expect(resumed.status).toBe("completed");
    const { messages } = resumed;
    expect(seen).toEqual(["c1", "c2"]);
    expect(results(messages).map((r) => r.output)).toEqual(["guarded c1", "guarded c2"]);
  });

  it("a stop on resume ends the resumed run as stopped", async () => {
    const first = agent([page("c1"), { id: "c2", name: "send", args: {} }]);
    const paused = await first.loop.run("go");
    const second = agent(null, {
      postToolCall: [
        (info) => (info.name === "send" ? { stop: true, stopReason: "no" } : undefined),
      ],
    });
    const resumed = await second.loop.resume(paused.state, { c2: { approve: true } });
    expect(resumed.status).toBe("stopped");
    expect(resumed.stopReason).toBe("no");
    expect(results(resumed.messages).map((r) => r.toolCallId)).toEqual(["c1", "c2"]);
  });
});

describe("post-call hooks: property", () => {
  const verdictArb = fc.oneof(
    fc.constant(undefined),
    fc.record({ output: fc.constantFrom("clean", { ok: 1 }) }),
    fc.record({ block: fc.constantFrom(true, "blocked!", "") }),
    fc.record({ stop: fc.constant(true), stopReason: fc.constantFrom("r1", undefined) }),
    fc.constantFrom({ bogus: 1 }, null, "throw"),
  );
  const scenario = fc.record({
    calls: fc.array(fc.constantFrom("fetch_page", "fail", "slow", "send"), {
      minLength: 1,
      maxLength: 5,
    }),
    verdicts: fc.array(fc.array(verdictArb, { minLength: 5, maxLength: 5 }), {
      minLength: 1,
      maxLength: 3,
    }),
    async: fc.boolean(),
  });

  it("random post verdicts: no output reaches the model unguarded, and every call of the step has exactly one result", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ calls, verdicts, async }) => {
        const parts = calls.map((name, i) => ({
          id: `c${i}`,
          name,
          args: name === "fetch_page" ? { url: `u${i}` } : {},
        }));
        const seenFirst = new Set<string>();
        const passed = new Map<string, number>(); // hooks that saw the raw output and let it pass
        const hooks: PostToolCallHook[] = verdicts.map((row, h) => (info) => {
          if (h === 0) seenFirst.add(info.toolCallId);
          const verdict = row[Number(info.toolCallId.slice(1))];
          if (verdict === "throw") throw new Error("hook down");
          if (verdict === undefined && JSON.stringify(info.output).includes(SECRET)) {
            passed.set(info.toolCallId, (passed.get(info.toolCallId) ?? 0) + 1);
          }
          return (async ? Promise.resolve(verdict) : verdict) as never;
        });
        const { loop, provider, ran } = agent(parts, { postToolCall: hooks });
        const outcome = await loop.run("go").catch((e: unknown) => e);
        const failed = outcome instanceof Error;
        if (failed) expect(outcome).toBeInstanceOf(HookError);
        const done = outcome as { messages: Message[]; status?: string; state?: unknown };
        // Every execution went through the chain.
        expect(seenFirst.size).toBe(ran.length);
        // An output carrying the secret reached the model only if every hook saw it and let it pass.
        const shown = [
          ...results(done.messages),
          ...provider.requests.flatMap((r) => results(r.messages)),
        ];
        for (const result of shown) {
          if (JSON.stringify(result.output).includes(SECRET)) {
            expect(passed.get(result.toolCallId)).toBe(hooks.length);
          }
        }
        // Every call of the step has exactly one result, unless it waits for approval.
        const got = results(done.messages).map((r) => r.toolCallId);
        if (done.status === "needs_approval") {
          expect(new Set(got).size).toBe(got.length);
          expect(got.length).toBeLessThan(parts.length);
        } else {
          expect(got).toEqual(parts.map((p) => p.id));
        }
      }),
      { numRuns: runs(200) },
    );
  });
});

describe("post-call hooks with the loop's other steering", () => {
  it("a blocked output reads as formatToolError writes it (kind withheld: the tool ran)", async () => {
    const { loop } = agent([page("p1")], {
      postToolCall: [() => ({ block: "secret in output" })],
      formatToolError: ({ kind, toolName, message }) => `[${kind}] ${toolName}: ${message}`,
    });
    const result = await loop.run("go");
    expect(results(result.messages)[0]).toMatchObject({
      output: "[withheld] fetch_page: secret in output",
      isError: true,
    });
  });

  it("hooks see the provider prepareStep chose for the step", async () => {
    const seen: string[] = [];
    const other = scriptedProvider([{ toolCalls: [page("p1")] }, { text: "done" }], {
      name: "other",
      model: "other-1",
    });
    const { loop } = agent(null, {
      policy: { prepareStep: () => ({ provider: other }) },
      postToolCall: [
        (info) => {
          seen.push(`${info.provider}/${info.model}`);
          return undefined;
        },
      ],
    });
    await loop.run("go");
    expect(seen).toEqual(["other/other-1"]);
  });
});
