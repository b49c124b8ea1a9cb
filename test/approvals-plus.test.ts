import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type Message,
  PolicyError,
  type RepairInfo,
  ResumeError,
  type RunState,
  type ToolErrorInfo,
  ToolRetriesExceededError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** `send` needs approval, `wipe` needs approval, `note` does not; every execution is logged. */
function agent(
  turns: Parameters<typeof scriptedProvider>[0],
  options: Partial<AgentLoopOptions> = {},
) {
  const ran: string[] = [];
  const send = tool({
    name: "send",
    input: z.object({ to: z.string().email() }),
    needsApproval: true,
    maxRetries: 1,
    execute: ({ to }) => {
      ran.push(`send ${to}`);
      return `sent to ${to}`;
    },
  });
  const wipe = tool({
    name: "wipe",
    input: z.object({}),
    needsApproval: true,
    execute: () => {
      ran.push("wipe");
      return "wiped";
    },
  });
  const note = tool({
    name: "note",
    input: z.object({ text: z.string() }),
    maxRetries: 1,
    execute: ({ text }) => {
      ran.push(`note ${text}`);
      return "noted";
    },
  });
  const events: LoopEvent[] = [];
  // One script for every loop of the agent: a resumed run continues where the paused one was.
  const provider = scriptedProvider(turns);
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [send, wipe, note],
      onEvent: (event) => events.push(event),
      trustState: true,
      ...options,
      ...extra,
    });
  return { loop: make(), make, ran, events };
}

const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));
const results = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));
const resultOf = (messages: Message[], id: string) =>
  results(messages).find((result) => result.toolCallId === id);
const decisionsIn = (events: LoopEvent[]) =>
  events.flatMap((event) => (event.type === "tool-decision" ? [event] : []));

const sendTo = (id: string, to: string) => ({ id, name: "send", args: { to } });

describe("sticky decisions: { approve: true, remember: 'tool' }", () => {
  it("approves every later call of that tool in the run, stored in the state across a JSON round trip, shown in events", async () => {
    const a = agent([
      { toolCalls: [sendTo("s1", "a@example.com")] },
      { toolCalls: [sendTo("s2", "b@example.com"), { id: "w1", name: "wipe", args: {} }] },
      { toolCalls: [sendTo("s3", "c@example.com")] },
      { text: "done" },
    ]);
    const first = await a.loop.run("go");
    expect(first.status).toBe("needs_approval");
    expect(first.state.remembered).toBeUndefined();

    const second = await a
      .make()
      .resume(roundTrip(first.state), { s1: { approve: true, remember: "tool" } });
    // s2 ran without asking; wipe (another tool) still asks.
    expect(second.status).toBe("needs_approval");
    expect(second.state.pending?.map((p) => p.toolCallId)).toEqual(["w1"]);
    expect(second.state.remembered).toEqual([{ toolName: "send", approve: true }]);
    expect(a.ran).toEqual(["send a@example.com", "send b@example.com"]);
    const s2 = decisionsIn(a.events).find((event) => event.toolCallId === "s2");
    expect(s2).toMatchObject({ verdict: "allow", by: "approval" });
    expect(s2?.reason).toMatch(/remembered decision/);

    a.events.length = 0;
    const third = await a.make().resume(roundTrip(second.state), { w1: { approve: true } });
    expect(third.status).toBe("completed");
    expect(a.ran).toEqual([
      "send a@example.com",
      "send b@example.com",
      "wipe",
      "send c@example.com",
    ]);
    expect(decisionsIn(a.events).find((e) => e.toolCallId === "s3")?.reason).toMatch(
      /remembered decision/,
    );
    expect(third.state.remembered).toEqual([{ toolName: "send", approve: true }]);
  });

  it("turns only NEEDS_APPROVAL into ALLOW: a policy DENY and a hook block still win", async () => {
    const a = agent(
      [
        { toolCalls: [sendTo("s1", "a@example.com")] },
        { toolCalls: [sendTo("s2", "evil@example.com"), sendTo("s3", "blocked@example.com")] },
        { text: "done" },
      ],
      {
        policy: {
          decideToolCall: ({ call }) =>
            (call.args as { to: string }).to.startsWith("evil")
              ? { decision: "DENY", reason: "no evil" }
              : undefined,
        },
        preToolCall: [
          (call) =>
            (call.args as { to?: string }).to?.startsWith("blocked")
              ? { block: "blocked by hook" }
              : undefined,
        ],
      },
    );
    const paused = await a.loop.run("go");
    const done = await a.make().resume(paused.state, { s1: { approve: true, remember: "tool" } });
    expect(done.status).toBe("completed");
    expect(a.ran).toEqual(["send a@example.com"]);
    const calls = done.steps[1]!.calls;
    expect(calls[0]).toMatchObject({ verdict: "deny", by: "policy", reason: "no evil" });
    expect(calls[1]).toMatchObject({ verdict: "block", by: "hook:0" });
  });

  it("never widens past the run: a new run of the same loop asks again", async () => {
    const a = agent([
      { toolCalls: [sendTo("s1", "a@example.com")] },
      { text: "done" },
      { toolCalls: [sendTo("s2", "b@example.com")] },
    ]);
    const loop = a.make();
    const paused = await loop.run("go");
    await loop.resume(paused.state, { s1: { approve: true, remember: "tool" } });
    const next = await loop.run("again");
    expect(next.status).toBe("needs_approval");
    expect(next.state.remembered).toBeUndefined();
  });

  it("an approval without remember stays one call's: the next call of the tool asks again", async () => {
    const a = agent([
      { toolCalls: [sendTo("s1", "a@example.com")] },
      { toolCalls: [sendTo("s2", "b@example.com")] },
    ]);
    const paused = await a.loop.run("go");
    const again = await a.make().resume(paused.state, { s1: { approve: true } });
    expect(again.status).toBe("needs_approval");
    expect(again.state.pending?.[0]?.toolCallId).toBe("s2");
  });
});

describe("sticky decisions: { approve: false, remember: 'tool' }", () => {
  it("refuses every later call of that tool without asking, even with other args and a policy ALLOW", async () => {
    const a = agent(
      [
        { toolCalls: [sendTo("s1", "a@example.com")] },
        { toolCalls: [sendTo("s2", "b@example.com")] },
        { text: "fine" },
      ],
      { policy: { decideToolCall: ({ step }) => (step === 0 ? undefined : "ALLOW") } },
    );
    const paused = await a.loop.run("go");
    const done = await a.make().resume(roundTrip(paused.state), {
      s1: { approve: false, reason: "no mail", remember: "tool" },
    });
    expect(done.status).toBe("completed");
    expect(a.ran).toEqual([]);
    expect(done.steps[1]!.calls[0]).toMatchObject({ verdict: "deny", by: "approval" });
    expect(done.steps[1]!.calls[0]!.reason).toMatch(/remembered decision \(no mail\)/);
    expect(resultOf(done.messages, "s2")).toMatchObject({ isError: true });
    expect(String(resultOf(done.messages, "s2")?.output)).toMatch(/do not call send again/);
    expect(done.state.remembered).toEqual([
      { toolName: "send", approve: false, reason: "no mail" },
    ]);
  });
});

describe("sticky decisions: checks on resume", () => {
  const paused = async (turns: Parameters<typeof scriptedProvider>[0]) => {
    const a = agent(turns);
    return { a, state: (await a.loop.run("go")).state };
  };

  it('refuses a remember that is not "tool"', async () => {
    const { a, state } = await paused([{ toolCalls: [sendTo("s1", "a@example.com")] }]);
    await expect(
      a.make().resume(state, { s1: { approve: true, remember: "run" as "tool" } }),
    ).rejects.toThrow(/`remember` must be "tool"/);
    await expect(
      a.make().resume(state, { s1: { approve: true, remembr: "tool" } as never }),
    ).rejects.toThrow(/did you mean `remember`/);
  });

  it("refuses an approval and a refusal remembered for one tool in one resume", async () => {
    const { a, state } = await paused([
      { toolCalls: [sendTo("s1", "a@example.com"), sendTo("s2", "b@example.com")] },
    ]);
    await expect(
      a.make().resume(state, {
        s1: { approve: true, remember: "tool" },
        s2: { approve: false, remember: "tool" },
      }),
    ).rejects.toThrow(ResumeError);
    expect(a.ran).toEqual([]);
  });

  it("a damaged remembered list (bad shape, two for one tool) is refused before anything runs", async () => {
    const { a, state } = await paused([{ toolCalls: [sendTo("s1", "a@example.com")] }]);
    const badShape = { ...roundTrip(state), remembered: [{ toolName: "send", approve: "yes" }] };
    await expect(a.make().resume(badShape as never, { s1: { approve: true } })).rejects.toThrow(
      /damaged at remembered\[0\]\.approve/,
    );
    const twice = {
      ...roundTrip(state),
      remembered: [
        { toolName: "send", approve: true },
        { toolName: "send", approve: false },
      ],
    };
    await expect(a.make().resume(twice, { s1: { approve: true } })).rejects.toThrow(
      /two decisions for one tool/,
    );
    expect(a.ran).toEqual([]);
  });

  it("is signed with the state: a remembered approval added afterwards breaks the signature", async () => {
    const a = agent(
      [
        { toolCalls: [sendTo("s1", "a@example.com")] },
        { toolCalls: [{ id: "w1", name: "wipe", args: {} }] },
      ],
      { trustState: false, signingKey: "k".repeat(32), allowReplay: true },
    );
    const first = await a.loop.run("go");
    const second = await a.make().resume(roundTrip(first.state), { s1: { approve: true } });
    expect(second.state.pending?.[0]?.toolCallId).toBe("w1");
    const forged = {
      ...roundTrip(second.state),
      remembered: [{ toolName: "wipe", approve: true }],
    };
    await expect(a.make().resume(forged, { w1: { approve: false } })).rejects.toThrow(
      /signature does not match/,
    );
  });
});

describe("repairToolCall", () => {
  it("fixes args that failed parsing: the fixed args are validated, run, and recorded with repairedFrom", async () => {
    const seen: RepairInfo[] = [];
    const a = agent(
      [{ toolCalls: [{ id: "n1", name: "note", args: "{text: 'hi'" }] }, { text: "ok" }],
      {
        repairToolCall: (info) => {
          seen.push(info);
          return { text: "hi" };
        },
      },
    );
    const result = await a.loop.run("go");
    expect(result.status).toBe("completed");
    expect(a.ran).toEqual(["note hi"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.call).toEqual({ id: "n1", name: "note", rawArgs: "{text: 'hi'" });
    expect(seen[0]!.tool.name).toBe("note");
    expect(seen[0]!.step).toBe(0);
    expect(seen[0]!.error).toMatch(/invalid JSON/);
    expect(seen[0]!.error).not.toMatch(/Send the arguments again/);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "allow",
      args: { text: "hi" },
      rawArgs: "{text: 'hi'",
      repairedFrom: "{text: 'hi'",
    });
    expect(resultOf(result.messages, "n1")).toMatchObject({ output: "noted", isError: false });
  });

  it("also fixes args the schema rejected, and may answer later (a promise)", async () => {
    const a = agent(
      [{ toolCalls: [{ id: "n1", name: "note", args: { text: 5 } }] }, { text: "ok" }],
      {
        repairToolCall: async ({ call }) => ({ text: String(JSON.parse(call.rawArgs).text) }),
      },
    );
    const result = await a.loop.run("go");
    expect(a.ran).toEqual(["note 5"]);
    expect(result.steps[0]!.calls[0]!.repairedFrom).toBe('{"text":5}');
  });

  it("the fixed args go through the hooks and the policy like the model's: a NEEDS_APPROVAL pauses, and resumes after a JSON round trip", async () => {
    const hookSaw: unknown[] = [];
    const a = agent(
      [{ toolCalls: [{ id: "s1", name: "send", args: { to: "bob" } }] }, { text: "ok" }],
      {
        preToolCall: [
          (call) => {
            hookSaw.push(call.args);
          },
        ],
        repairToolCall: () => ({ to: "bob@example.com" }),
      },
    );
    const paused = await a.loop.run("go");
    expect(hookSaw).toEqual([{ to: "bob@example.com" }]);
    expect(paused.status).toBe("needs_approval");
    expect(paused.state.pending?.[0]).toMatchObject({ args: { to: "bob@example.com" } });
    expect(paused.state.steps[0]!.calls[0]!.repairedFrom).toBe('{"to":"bob"}');
    const done = await a.make().resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(done.status).toBe("completed");
    expect(a.ran).toEqual(["send bob@example.com"]);
    expect(done.steps[0]!.calls[0]!.repairedFrom).toBe('{"to":"bob"}');
  });

  it("a policy DENY still denies repaired args", async () => {
    const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "oops" }] }, { text: "ok" }], {
      repairToolCall: () => ({ text: "secret" }),
      policy: { decideToolCall: () => ({ decision: "DENY", reason: "no notes" }) },
    });
    const result = await a.loop.run("go");
    expect(a.ran).toEqual([]);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "deny",
      by: "policy",
      repairedFrom: "oops",
    });
  });

  it("no fix (undefined) or a fix the schema rejects leaves the call invalid, with the model's own error", async () => {
    for (const fix of [undefined, { text: 7 }]) {
      const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "oops" }] }, { text: "ok" }], {
        repairToolCall: () => fix,
      });
      const result = await a.loop.run("go");
      expect(a.ran).toEqual([]);
      const call = result.steps[0]!.calls[0]!;
      expect(call).toMatchObject({ verdict: "invalid", by: "schema" });
      expect(call.repairedFrom).toBeUndefined();
      expect(String(resultOf(result.messages, "n1")?.output)).toMatch(/invalid JSON/);
    }
  });

  it("is not asked about valid calls, nor about tools that are not callable", async () => {
    let asked = 0;
    const a = agent(
      [
        {
          toolCalls: [
            { id: "n1", name: "note", args: { text: "fine" } },
            { id: "x1", name: "nope", args: "{" },
          ],
        },
        { text: "ok" },
      ],
      {
        maxRetries: 2,
        repairToolCall: () => {
          asked++;
          return undefined;
        },
      },
    );
    await a.loop.run("go");
    expect(asked).toBe(0);
  });

  it("counts like a retry against the tool's maxRetries", async () => {
    const a = agent(
      [
        { toolCalls: [{ id: "n1", name: "note", args: "bad" }] },
        { toolCalls: [{ id: "n2", name: "note", args: "bad" }] },
        { text: "ok" },
      ],
      { repairToolCall: () => ({ text: "fixed" }) },
    );
    const error = await a.loop.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    // The second repair is the second failure: past maxRetries (1), before the call runs.
    expect(a.ran).toEqual(["note fixed"]);
    const one = agent([{ toolCalls: [{ id: "n1", name: "note", args: "bad" }] }, { text: "ok" }], {
      repairToolCall: () => ({ text: "fixed" }),
    });
    const result = await one.loop.run("go");
    expect(result.state.retries).toEqual({ note: 1 });
  });

  it("a throwing repair, or one that answers what JSON cannot carry, rejects the run with PolicyError", async () => {
    const answers: (() => unknown)[] = [
      () => {
        throw new Error("repair broke");
      },
      () => ({ text: 1n }),
      () => () => "a function",
      () => Promise.reject(new Error("later")),
    ];
    for (const answer of answers) {
      const a = agent([{ toolCalls: [{ id: "n1", name: "note", args: "bad" }] }, { text: "ok" }], {
        repairToolCall: answer,
      });
      const error = await a.loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("repairToolCall");
      expect(a.ran).toEqual([]);
    }
  });

  it("must be a function", () => {
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), repairToolCall: "fix" as never }),
    ).toThrow(/`repairToolCall` must be a function/);
  });
});

describe("formatToolError", () => {
  it("writes the text the model reads for blocked, denied, invalid and unavailable calls; records keep the reason", async () => {
    const infos: ToolErrorInfo[] = [];
    const a = agent(
      [
        {
          toolCalls: [
            { id: "b1", name: "note", args: { text: "block me" } },
            { id: "d1", name: "note", args: { text: "deny me" } },
            { id: "i1", name: "note", args: "{" },
            { id: "u1", name: "nope", args: {} },
          ],
        },
        { text: "ok" },
      ],
      {
        maxRetries: 2,
        preToolCall: [
          (call) =>
            (call.args as { text: string }).text === "block me"
              ? { block: "no blocking" }
              : undefined,
        ],
        policy: {
          decideToolCall: ({ call }) =>
            (call.args as { text: string }).text === "deny me"
              ? { decision: "DENY", reason: "no denying" }
              : undefined,
        },
        formatToolError: (info) => {
          infos.push(info);
          return `[${info.kind}] ${info.toolName}`;
        },
      },
    );
    const result = await a.loop.run("go");
    expect(results(result.messages).map((r) => r.output)).toEqual([
      "[blocked] note",
      "[denied] note",
      "[invalid] note",
      "[unavailable] nope",
    ]);
    expect(infos.map((info) => info.kind)).toEqual(["blocked", "denied", "invalid", "unavailable"]);
    expect(infos[0]).toEqual({
      kind: "blocked",
      toolName: "note",
      message: "no blocking",
      reason: "no blocking",
    });
    expect(infos[1]).toEqual({
      kind: "denied",
      toolName: "note",
      message: "the call to note was denied: no denying",
      reason: "no denying",
    });
    expect(result.steps[0]!.calls.map((call) => call.reason)).toEqual([
      "no blocking",
      "no denying",
      expect.stringMatching(/invalid JSON/),
      expect.stringMatching(/not available/),
    ]);
  });

  it("writes the text of a human's refusal on resume, and of a remembered refusal", async () => {
    const infos: ToolErrorInfo[] = [];
    const a = agent(
      [
        { toolCalls: [sendTo("s1", "a@example.com")] },
        { toolCalls: [sendTo("s2", "b@example.com")] },
        { text: "ok" },
      ],
      {
        formatToolError: (info) => {
          infos.push(info);
          return `refused: ${info.reason}`;
        },
      },
    );
    const paused = await a.loop.run("go");
    const done = await a
      .make()
      .resume(paused.state, { s1: { approve: false, reason: "nope", remember: "tool" } });
    expect(infos.map((info) => info.kind)).toEqual(["refused", "refused"]);
    expect(resultOf(done.messages, "s1")?.output).toBe("refused: nope");
    expect(String(resultOf(done.messages, "s2")?.output)).toMatch(/^refused: refused for the rest/);
    expect(done.steps[0]!.calls[0]!.reason).toBe("nope");
  });

  it("the developer's error keeps the problem, not the formatted text", async () => {
    const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }], {
      maxRetries: 0,
      formatToolError: () => "try again",
    });
    const error = (await a.loop.run("go").catch((e: unknown) => e)) as ToolRetriesExceededError;
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect((error.cause as Error).message).toMatch(/not available/);
  });

  it("must return a string: anything else, or a throw, rejects the run with PolicyError", async () => {
    for (const format of [
      () => 42,
      () => undefined,
      () => Promise.resolve("later"),
      () => {
        throw new Error("format broke");
      },
    ]) {
      const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }, { text: "ok" }], {
        formatToolError: format as never,
      });
      const error = await a.loop.run("go").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("formatToolError");
    }
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), formatToolError: "x" as never }),
    ).toThrow(/`formatToolError` must be a function/);
  });

  it("without it, the model reads the default texts", async () => {
    const a = agent([{ toolCalls: [{ id: "u1", name: "nope", args: {} }] }, { text: "ok" }]);
    const result = await a.loop.run("go");
    expect(String(resultOf(result.messages, "u1")?.output)).toMatch(
      /^tool nope is not available in this step/,
    );
  });
});

describe("repairToolCall answering with text", () => {
  it("a string (JSON text not parsed) or null is a PolicyError saying to return data", async () => {
    for (const answer of ['{"to":"bob@example.com"}', null]) {
      const send = tool({
        name: "send",
        input: z.object({ to: z.string() }),
        execute: ({ to }) => `sent to ${to}`,
      });
      const loop = new AgentLoop({
        provider: scriptedProvider([{ toolCalls: [{ name: "send", args: "{'to': 'bob'}" }] }]),
        tools: [send],
        repairToolCall: () => answer,
      });
      await expect(loop.run("go")).rejects.toThrow(
        /repairToolCall .*returned (a string|null); return the fixed args as data \(JSON\.parse the text\), or undefined for no fix/,
      );
    }
  });
});
