/**
 * What a human is shown is what runs (DESIGN §10 "Resume"): a state's `pending` (and
 * `external`) is derived from its steps; a state whose list differs from what its steps derive
 * is refused with a ResumeError, with or without a signing key, under trustState too.
 */
import { createHmac } from "node:crypto";
import { AgentLoop, memoryRunStore, ResumeError, type RunState, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const KEY = "k".repeat(32);

/** A transfer that needs approval, and a client-side `locate`; every execution is logged. */
function agent(first: { name: string; args: unknown } = transferTo("bob", 10)) {
  const executed: string[] = [];
  const transfer = tool({
    name: "transfer",
    input: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: ({ to, amount }) => {
      executed.push(`transfer ${to}:${amount}`);
      return "sent";
    },
  });
  const refund = tool({
    name: "refund",
    input: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: ({ to, amount }) => {
      executed.push(`refund ${to}:${amount}`);
      return "refunded";
    },
  });
  const locate = tool({ name: "locate", input: z.object({ precise: z.boolean() }) });
  const make = (options: Record<string, unknown> = {}) =>
    new AgentLoop({
      provider: functionProvider((request) =>
        request.messages.some((message) => message.role === "tool")
          ? { text: "done" }
          : { toolCalls: [{ id: "c1", ...first }] },
      ),
      tools: [transfer, refund, locate],
      ...options,
    });
  return { executed, make };
}

function transferTo(to: string, amount: number) {
  return { name: "transfer", args: { to, amount } };
}

const copy = (state: RunState): RunState => JSON.parse(JSON.stringify(state));

/** JSON with sorted keys: the oracle's own canonical form, to re-sign an edited state. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Signs a state as a holder of the key would (HMAC-SHA-256 over all but `signature`). */
function resign(state: RunState): RunState {
  const { signature: _old, ...rest } = state;
  return { ...rest, signature: createHmac("sha256", KEY).update(canonical(rest)).digest("hex") };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => new Error("it did not reject"),
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(ResumeError);
  return error.message;
}

const EDITS: [string, (state: RunState) => void, RegExp][] = [
  [
    "args",
    (state) => {
      state.pending![0]!.args = { to: "mallory", amount: 9999 };
    },
    /`pending` is not what its steps hold \(entry 0 \(call c1\) differs in `args`\)/,
  ],
  [
    "toolName",
    (state) => {
      state.pending![0]!.toolName = "refund";
    },
    /`pending` is not what its steps hold \(entry 0 \(call c1\) differs in `toolName`\)/,
  ],
  [
    "reason",
    (state) => {
      state.pending![0]!.reason = "pre-approved by finance";
    },
    /differs in `reason`/,
  ],
  [
    "a dropped entry",
    (state) => {
      state.pending = [];
    },
    /it lists 0 calls, its steps 1/,
  ],
  [
    "an added entry",
    (state) => {
      state.pending!.push({ ...state.pending![0]!, toolCallId: "c2" });
    },
    /it lists 2 calls, its steps 1/,
  ],
];

describe("a state whose pending differs from its steps is refused", () => {
  for (const [what, edit, message] of EDITS) {
    it(`${what}: with a valid digest (no key), nothing runs; the state as written resumes`, async () => {
      const { executed, make } = agent();
      const paused = await make({ allowReplay: true }).run("pay bob");
      const digest = paused.pending![0]!.digest;
      const edited = copy(paused.state);
      edit(edited);
      const loop = make({ allowReplay: true });
      expect(await refusal(loop.resume(edited, { c1: { approve: true, digest } }))).toMatch(
        message,
      );
      expect(executed).toEqual([]);
      await loop.resume(copy(paused.state), { c1: { approve: true, digest } });
      expect(executed).toEqual(["transfer bob:10"]);
    });
  }

  it("with a signing key, even when the edited state is signed again with it", async () => {
    const { executed, make } = agent();
    const paused = await make({ signingKey: KEY, allowReplay: true }).run("pay bob");
    const loop = make({ signingKey: KEY, allowReplay: true });
    // The oracle signs as the loop does: the unedited state, re-signed, still resumes.
    expect(resign(copy(paused.state)).signature).toBe(paused.state.signature);
    for (const [, edit, message] of EDITS) {
      const edited = copy(paused.state);
      edit(edited);
      expect(await refusal(loop.resume(resign(edited), { c1: { approve: true } }))).toMatch(
        message,
      );
    }
    expect(executed).toEqual([]);
    await loop.resume(copy(paused.state), { c1: { approve: true } });
    expect(executed).toEqual(["transfer bob:10"]);
  });

  it("with a store that holds the state: an edited copy given by value is refused, not replaced by the store's", async () => {
    const { executed, make } = agent();
    const loop = make({ signingKey: KEY, store: memoryRunStore() });
    const paused = await loop.run("pay bob");
    for (const [, edit] of EDITS) {
      const edited = copy(paused.state);
      edit(edited);
      expect(await refusal(loop.resume(edited, { c1: { approve: true } }))).toMatch(
        /is not the one the store holds under its stateId: it was changed after it was written/,
      );
    }
    expect(executed).toEqual([]);
    await loop.resume(copy(paused.state), { c1: { approve: true } });
    expect(executed).toEqual(["transfer bob:10"]);
  });

  it("under trustState: true", async () => {
    const { executed, make } = agent();
    const loop = make({ trustState: true });
    const paused = await loop.run("pay bob");
    for (const [, edit, message] of EDITS) {
      const edited = copy(paused.state);
      edit(edited);
      expect(await refusal(loop.resume(edited, { c1: { approve: true } }))).toMatch(message);
    }
    expect(executed).toEqual([]);
  });

  it("a client-side call's external list too", async () => {
    const { make } = agent({ name: "locate", args: { precise: false } });
    const loop = make({ trustState: true });
    const paused = await loop.run("where am I?");
    expect(paused.status).toBe("needs_results");
    const edited = copy(paused.state);
    edited.external![0]!.args = { precise: true };
    expect(await refusal(loop.resume(edited, { c1: { result: "Oslo" } }))).toMatch(
      /the state's `external` is not what its steps hold \(entry 0 \(call c1\) differs in `args`\)/,
    );
    const done = await loop.resume(copy(paused.state), { c1: { result: "Oslo" } });
    expect(done.status).toBe("completed");
  });

  it("a sub-agent's call, listed in its parent's pending", async () => {
    const { executed, make } = agent();
    const sub = make();
    const parent = new AgentLoop({
      provider: functionProvider((request) =>
        request.messages.some((message) => message.role === "tool")
          ? { text: "parent done" }
          : { toolCalls: [{ id: "p1", name: "payer", args: { prompt: "pay bob" } }] },
      ),
      tools: [sub.asTool({ name: "payer", description: "Pays" })],
      trustState: true,
    });
    const paused = await parent.run("go");
    expect(paused.pending).toMatchObject([{ toolCallId: "c1", subRun: { path: ["p1"] } }]);
    for (const edit of [
      (state: RunState) => {
        state.pending![0]!.args = { to: "mallory", amount: 9999 };
      },
      (state: RunState) => {
        state.pending![0]!.subRun = { runId: "elsewhere", path: ["p1"] };
      },
    ]) {
      const edited = copy(paused.state);
      edit(edited);
      expect(await refusal(parent.resume(edited, { c1: { approve: true } }))).toMatch(
        /`pending` is not what its steps hold \(entry 0 \(call c1\) differs in `(args|subRun)`\)/,
      );
    }
    expect(executed).toEqual([]);
    await parent.resume(copy(paused.state), { c1: { approve: true } });
    expect(executed).toEqual(["transfer bob:10"]);
  });

  it("the message says nothing ran and what to do", async () => {
    const { make } = agent();
    const loop = make({ trustState: true });
    const paused = await loop.run("pay bob");
    const edited = copy(paused.state);
    edited.pending![0]!.args = { to: "mallory", amount: 9999 };
    expect(await refusal(loop.resume(edited, { c1: { approve: true } }))).toBe(
      "the state's `pending` is not what its steps hold (entry 0 (call c1) differs in `args`): it was changed after the state was written, so it shows something other than what would run; nothing ran. Resume the state as it was written, or by runId from the store",
    );
  });
});
