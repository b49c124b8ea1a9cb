/**
 * Exactly once is the default (DESIGN §10 "Resume"): a loop that takes states by value across
 * instances — a `signingKey`, or decisions carrying digests — needs a store that claims them,
 * unless `allowReplay: true` says replays are acceptable.
 */
import { AgentLoop, memoryRunStore, ResumeError, type RunState, tool } from "tollgate";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** The transfer agent: every loop built by `make` shares the `executed` log. */
function transferAgent() {
  const executed: string[] = [];
  const transfer = tool({
    name: "transfer",
    input: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: ({ to, amount }) => {
      executed.push(`${to}:${amount}`);
      return "sent";
    },
  });
  const make = (options: Record<string, unknown> = {}) =>
    new AgentLoop({
      // Answers from the transcript, so any loop can take the next turn.
      provider: functionProvider((request) =>
        request.messages.some((message) => message.role === "tool")
          ? { text: "done" }
          : { toolCalls: [{ id: "t1", name: "transfer", args: { to: "bob", amount: 10 } }] },
      ),
      tools: [transfer],
      ...options,
    });
  return { executed, make };
}

const copy = (state: RunState): RunState => JSON.parse(JSON.stringify(state));

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => new Error("it did not reject"),
    (error: Error) => error,
  );
}

describe("a loop with a signingKey", () => {
  it("is refused without a store: the TypeError says to give one (memoryRunStore) or allowReplay", () => {
    const { make } = transferAgent();
    const build = () => make({ signingKey: "k" });
    expect(build).toThrow(TypeError);
    expect(build).toThrow(/`signingKey`.*without a `store`.*twice/);
    expect(build).toThrow(/memoryRunStore\(\)/);
    expect(build).toThrow(/allowReplay: true/);
    // Loops that do not take signed states by value are built as before.
    expect(() => make()).not.toThrow();
    expect(() => make({ trustState: true })).not.toThrow();
    expect(() => make({ signingKey: "k", store: memoryRunStore() })).not.toThrow();
  });

  it("the issue's reproduction: two loops with a key and no store are refused; sharing a store, the second resume is a ResumeError and the tool ran once", async () => {
    const { executed, make } = transferAgent();
    // Before: two `new AgentLoop({ signingKey })` each resumed the same signed state (bob:10 twice).
    expect(() => make({ signingKey: "k" })).toThrow(TypeError);
    const store = memoryRunStore();
    const paused = await make({ signingKey: "k", store }).run("pay bob");
    const saved = JSON.stringify(paused.state);
    const first = await make({ signingKey: "k", store }).resume(JSON.parse(saved), {
      t1: { approve: true },
    });
    expect(first.status).toBe("completed");
    const second = await rejection(
      make({ signingKey: "k", store }).resume(JSON.parse(saved), { t1: { approve: true } }),
    );
    expect(second).toBeInstanceOf(ResumeError);
    expect(executed).toEqual(["bob:10"]);
  });

  it("allowReplay: true builds it without a store, and then two loops can each run the same state: the name says so", async () => {
    const { executed, make } = transferAgent();
    const paused = await make({ signingKey: "k", allowReplay: true }).run("pay bob");
    for (let i = 0; i < 2; i++) {
      await make({ signingKey: "k", allowReplay: true }).resume(copy(paused.state), {
        t1: { approve: true },
      });
    }
    expect(executed).toEqual(["bob:10", "bob:10"]);
  });

  it("allowReplay must be true or false", () => {
    const { make } = transferAgent();
    for (const value of ["yes", 1]) {
      expect(() => make({ allowReplay: value })).toThrow(
        "AgentLoop: `allowReplay` must be true or false",
      );
    }
  });
});

describe("decisions carrying digests, by value", () => {
  it("without a store are a ResumeError saying to give one or allowReplay; nothing runs and the state is not used up", async () => {
    const { executed, make } = transferAgent();
    const loop = make();
    const paused = await loop.run("pay bob");
    const digest = paused.pending![0]!.digest;
    const error = await rejection(
      loop.resume(copy(paused.state), { t1: { approve: true, digest } }),
    );
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(/no store to claim it/);
    expect(error.message).toMatch(/memoryRunStore\(\).*allowReplay: true/);
    expect(executed).toEqual([]);
    // The same state, on a loop that opts in, resumes once per loop.
    const replaying = make({ allowReplay: true });
    await replaying.resume(copy(paused.state), { t1: { approve: true, digest } });
    expect(executed).toEqual(["bob:10"]);
    await expect(
      replaying.resume(copy(paused.state), { t1: { approve: true, digest } }),
    ).rejects.toThrow(/already resumed/);
    expect(executed).toEqual(["bob:10"]);
  });

  it("with a store, bind the decision and resume once across loops", async () => {
    const { executed, make } = transferAgent();
    const store = memoryRunStore();
    const paused = await make({ store }).run("pay bob");
    const digest = paused.pending![0]!.digest;
    await make({ store }).resume(copy(paused.state), { t1: { approve: true, digest } });
    await expect(
      make({ store }).resume(copy(paused.state), { t1: { approve: true, digest } }),
    ).rejects.toThrow(ResumeError);
    // Without a store, the same decisions were refused before (see above): the store is the claim.
    await expect(
      make().resume(copy(paused.state), { t1: { approve: true, digest } }),
    ).rejects.toThrow(/no store to claim it/);
    expect(executed).toEqual(["bob:10"]);
  });
});
