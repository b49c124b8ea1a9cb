import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

/**
 * The reader of a streamed final answer (`output-delta` events, the partial JSON parser) loads
 * on a run's first model call with `output`, in each process. Each test here gets fresh modules
 * (`vi.resetModules()`), so each meets that first call: the answer streams on it, and a run
 * aborted while the reader loads sends nothing to the model.
 */
let tollgate: typeof import("tollgate");
let testing: typeof import("tollgate/testing");

beforeEach(async () => {
  vi.resetModules();
  tollgate = await import("tollgate");
  testing = await import("tollgate/testing");
});

const City = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: "Oslo", celsius: 21 };

const nativeProvider = () =>
  testing.scriptedProvider([{ text: JSON.stringify(oslo) }], {
    stream: true,
    chunkSize: 4,
    supportsNativeOutput: true,
  });

/** Runs `loop` with a signal aborted at once, and waits until the load has settled. */
async function abortedAtOnce(loop: InstanceType<typeof tollgate.AgentLoop>) {
  const controller = new AbortController();
  const running = loop.run("?", { signal: controller.signal });
  const reason = new Error("user left");
  controller.abort(reason);
  await expect(running).rejects.toBe(reason);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the load has settled by now
}

describe("structured output on the first run of a process", () => {
  it("streams partial answers and completes with the whole one", async () => {
    const events: import("tollgate").LoopEvent[] = [];
    const loop = new tollgate.AgentLoop({ provider: nativeProvider(), output: City });
    for await (const event of loop.stream("?")) events.push(event);
    const partials = events.flatMap((event) =>
      event.type === "output-delta" ? [event.output] : [],
    );
    expect(partials).toContainEqual({ city: "Oslo" });
    expect(partials.at(-1)).toEqual(oslo);
    const finish = events.at(-1)!;
    expect(finish.type === "run-finish" && finish.result.output).toEqual(oslo);
  });

  it("a run aborted while the reader loads sends nothing to the model", async () => {
    const provider = nativeProvider();
    await abortedAtOnce(new tollgate.AgentLoop({ provider, output: City }));
    expect(provider.requests).toEqual([]);
  });
});

/**
 * `prepareStep`, the model hooks and the post-call hooks load with the first step of a loop that
 * has one (their own chunk), or before a resumed run's paused step, in each process: here each
 * test meets that first step with fresh modules.
 */
describe("prepareStep, model hooks and post-call hooks on the first run of a process", () => {
  const echo = () =>
    tollgate.tool({ name: "echo", input: z.object({ x: z.number() }), execute: ({ x }) => x });
  const oneCall = () =>
    testing.scriptedProvider([{ toolCalls: [{ name: "echo", args: { x: 1 } }] }, { text: "done" }]);

  it("prepareStep steers the first step", async () => {
    const provider = oneCall();
    const loop = new tollgate.AgentLoop({
      provider,
      tools: [echo()],
      policy: { prepareStep: ({ stepIndex }) => ({ instructions: `step ${stepIndex}` }) },
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(provider.requests.map((request) => request.system)).toEqual(["step 0", "step 1"]);
    expect(result.steps[0]!.instructions).toBe("step 0");
  });

  it("a pre-model hook blocks the first request, a post-model hook rewrites the answer", async () => {
    const blocked = new tollgate.AgentLoop({
      provider: oneCall(),
      tools: [echo()],
      preModelCall: [() => ({ stop: true, stopReason: "not today" })],
    });
    const stopped = await blocked.run("go");
    expect(stopped.status).toBe("stopped");
    const rewritten = new tollgate.AgentLoop({
      provider: testing.scriptedProvider([{ text: "secret" }]),
      postModelCall: [() => ({ text: "redacted" })],
    });
    expect((await rewritten.run("go")).text).toBe("redacted");
  });

  it("a run aborted while they load asks nothing and sends nothing to the model", async () => {
    const provider = oneCall();
    let asked = 0;
    const loop = new tollgate.AgentLoop({
      provider,
      tools: [echo()],
      policy: { prepareStep: () => void asked++ },
    });
    await abortedAtOnce(loop);
    expect(asked).toBe(0);
    expect(provider.requests).toEqual([]);
  });

  it("a handoff's target with prepareStep, from a loop without one, has it on its first step", async () => {
    const targetProvider = testing.scriptedProvider([{ text: "billed" }]);
    const target = new tollgate.AgentLoop({
      name: "billing",
      provider: targetProvider,
      policy: { prepareStep: () => ({ instructions: "billing, steered" }) },
    });
    const triage = new tollgate.AgentLoop({
      name: "triage",
      provider: testing.scriptedProvider([
        { toolCalls: [{ name: "transfer_to_billing", args: {} }] },
      ]),
      handoffs: [tollgate.handoff(() => target, { name: "billing" })],
    });
    const result = await triage.run("go");
    expect(result.text).toBe("billed");
    expect(targetProvider.requests[0]?.system).toBe("billing, steered");
  });

  it("a post-call hook rewrites the first call's output", async () => {
    const loop = new tollgate.AgentLoop({
      provider: oneCall(),
      tools: [echo()],
      postToolCall: [({ output }) => ({ output: `seen ${String(output)}` })],
    });
    const result = await loop.run("go");
    const tool = result.messages.find((message) => message.role === "tool");
    expect(tool?.role === "tool" && tool.results[0]!.output).toBe("seen 1");
  });

  it("a resume in a process whose first run it is judges the approved call's output", async () => {
    const approve = () =>
      tollgate.tool({
        name: "echo",
        input: z.object({ x: z.number() }),
        needsApproval: true,
        execute: ({ x }) => x,
      });
    const paused = await new tollgate.AgentLoop({
      provider: oneCall(),
      tools: [approve()],
    }).run("go");
    expect(paused.status).toBe("needs_approval");
    const saved = JSON.stringify(paused.state);
    const id = paused.status === "needs_approval" ? paused.pending[0]!.toolCallId : "";
    vi.resetModules();
    tollgate = await import("tollgate");
    testing = await import("tollgate/testing");
    const resumed = await new tollgate.AgentLoop({
      provider: testing.scriptedProvider([{ text: "done" }]),
      tools: [approve()],
      trustState: true,
      postToolCall: [({ output }) => ({ output: `judged ${String(output)}` })],
    }).resume(JSON.parse(saved), { [id]: { approve: true } });
    expect(resumed.status).toBe("completed");
    const tool = resumed.messages.find((message) => message.role === "tool");
    expect(tool?.role === "tool" && tool.results[0]!.output).toBe("judged 1");
  });
});
