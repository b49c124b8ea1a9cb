import { AgentLoop, ResumeError, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** A loop whose one tool waits for approval; a run that reaches the model ends at a pause. */
function approvalLoop(turns: Parameters<typeof scriptedProvider>[0] = []) {
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => `sent to ${to}`,
  });
  const provider = scriptedProvider(turns);
  return { loop: new AgentLoop({ provider, tools: [send], trustState: true }), provider };
}

describe("run() input checks", () => {
  it("an unknown run option is refused with a did-you-mean, before the model is asked", async () => {
    const { loop, provider } = approvalLoop();
    const run = loop.run("hi", { maxStep: 3 } as never);
    await expect(run).rejects.toThrow(TypeError);
    await expect(run).rejects.toThrow(
      /run\(\) options: unknown option `maxStep`; did you mean `maxSteps`\?/,
    );
    expect(provider.requests).toHaveLength(0);
  });

  it("another library's name for a run option points at ours", async () => {
    const { loop } = approvalLoop();
    const signal = new AbortController().signal;
    await expect(loop.run("hi", { abortSignal: signal } as never)).rejects.toThrow(
      /unknown option `abortSignal`; did you mean `signal`\?/,
    );
  });

  it("a message with a role the transcript cannot hold is refused, naming its index", async () => {
    const { loop, provider } = approvalLoop();
    const input = [
      { role: "user", content: "hi" },
      { role: "system", content: "be brief" },
    ];
    await expect(loop.run(input as never)).rejects.toThrow(
      'run(): message 1 has no valid role; use "user", "assistant" or "tool"',
    );
    expect(provider.requests).toHaveLength(0);
  });

  it("stream() refuses the same input on its first next()", async () => {
    const { loop } = approvalLoop();
    const events = loop.stream("hi", { runID: "r1" } as never);
    await expect(events.next()).rejects.toThrow(/unknown option `runID`; did you mean `runId`\?/);
  });
});

describe("resume() input checks", () => {
  const pause = { toolCalls: [{ id: "s1", name: "send", args: { to: "bob" } }] };

  it("a state given as a promise is a forgotten await, said so, and the state is not used up", async () => {
    const { loop } = approvalLoop([pause, { text: "sent" }]);
    const paused = await loop.run("mail bob");
    expect(paused.status).toBe("needs_approval");
    const unawaited = Promise.resolve(paused.state);
    const refused = loop.resume(unawaited as never, { s1: { approve: true } });
    await expect(refused).rejects.toThrow(ResumeError);
    await expect(refused).rejects.toThrow(/resume\(\) got a promise, not a state: await it first/);
    const resumed = await loop.resume(await unawaited, { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
  });

  it("decisions given as a promise are refused too", async () => {
    const { loop } = approvalLoop([pause]);
    const paused = await loop.run("mail bob");
    const decisions = Promise.resolve({ s1: { approve: true } });
    await expect(loop.resume(paused.state, decisions as never)).rejects.toThrow(
      /resume\(\) got a promise for the decisions/,
    );
  });

  it("`limits` is refused on resume: the state keeps the run's own", async () => {
    const { loop } = approvalLoop([pause]);
    const paused = await loop.run("mail bob");
    const options = { limits: { toolCalls: 1 } } as never;
    await expect(loop.resume(paused.state, {}, options)).rejects.toThrow(
      /a resumed run keeps the limits it started with/,
    );
  });
});
