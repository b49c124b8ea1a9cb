import { ResumeError } from "tollgate";
import type { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import {
  agent,
  decisionsIn,
  resultOf,
  roundTrip,
  sendTo,
} from "../support/send-wipe-note-agent.js";

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
