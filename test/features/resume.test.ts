import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type Message,
  memoryRunStore,
  ResumeError,
  type RunResult,
  type RunState,
  tool,
  type UnsettledCall,
} from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalAgent } from "../support/approval-agent.js";

const CHILD = join(import.meta.dirname, "..", "support", "resume-child.ts");
const tempDir = () => mkdtempSync(join(tmpdir(), "tollgate-resume-"));
const lines = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

/** A small agent: `send` needs approval, `note` does not; every execution is logged. */
function mailAgent(
  turns: Parameters<typeof scriptedProvider>[0],
  options: Partial<AgentLoopOptions> = {},
) {
  const ran: string[] = [];
  const send = tool({
    name: "send",
    input: z.object({ to: z.string().email(), body: z.string().default("") }),
    needsApproval: true,
    execute: ({ to }) => {
      ran.push(`send ${to}`);
      return `sent to ${to}`;
    },
  });
  const note = tool({
    name: "note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      ran.push(`note ${text}`);
      return "noted";
    },
  });
  const provider = scriptedProvider(turns);
  const events: LoopEvent[] = [];
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [send, note],
      onEvent: (e) => events.push(e),
      // These tests resume states in the process that wrote them; "only trusted state runs" below
      // covers loops that do not trust states by value.
      trustState: true,
      ...options,
      ...extra,
    });
  return { loop: make(), make, ran, provider, events };
}

const toolMessages = (messages: Message[]) => messages.filter((m) => m.role === "tool");
const resultsOf = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === "tool" ? m.results : []));
const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));

const pauseTurn = {
  toolCalls: [
    { id: "n1", name: "note", args: { text: "draft" } },
    { id: "s1", name: "send", args: { to: "bob@example.com" } },
  ],
};

describe("pause and resume", () => {
  it("a paused run resumes from its JSON state in a new loop: approved calls run, one tool message for the step", async () => {
    const first = mailAgent([pauseTurn, { text: "mail sent" }]);
    const paused = await first.loop.run("mail bob");
    expect(paused.status).toBe("needs_approval");
    expect(first.ran).toEqual(["note draft"]);
    const saved = JSON.stringify(paused.state);

    const second = first.make();
    const resumed = await second.resume(JSON.parse(saved), { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(resumed.text).toBe("mail sent");
    expect(first.ran).toEqual(["note draft", "send bob@example.com"]);
    expect(toolMessages(resumed.messages)).toEqual([
      {
        role: "tool",
        results: [
          { toolCallId: "n1", toolName: "note", output: "noted", isError: false },
          { toolCallId: "s1", toolName: "send", output: "sent to bob@example.com", isError: false },
        ],
      },
    ]);
    expect(resumed.state.runId).toBe(paused.state.runId);
    expect(resumed.steps).toHaveLength(2);
    expect(resumed.steps[0]!.calls[1]).toMatchObject({ verdict: "allow", by: "approval" });
  });

  it("carries steps, usage, maxSteps and runId over; run-start says resumed; human decisions show as by: approval", async () => {
    const agent = mailAgent(
      [
        { ...pauseTurn, usage: { inputTokens: 5, outputTokens: 1 } },
        { text: "ok", usage: { inputTokens: 7, outputTokens: 2 } },
      ],
      {
        maxSteps: 2,
      },
    );
    const paused = await agent.loop.run("go");
    agent.events.length = 0;
    const resumed = await agent
      .make()
      .resume(paused.state, { s1: { approve: false, reason: "not today" } });
    expect(resumed.usage).toMatchObject({ inputTokens: 12, outputTokens: 3 });
    expect(resumed.state.maxSteps).toBe(2);
    const types = agent.events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["run-start", "tool-decision", "tool-result", "step-finish"]);
    expect(agent.events[0]).toMatchObject({
      type: "run-start",
      resumed: true,
      runId: paused.state.runId,
    });
    expect(agent.events[1]).toMatchObject({ verdict: "deny", by: "approval", toolCallId: "s1" });
    expect(new Set(agent.events.map((e) => e.runId))).toEqual(new Set([paused.state.runId]));
  });

  it("a refusal gives the model a denied result with the reason and remembers it", async () => {
    const agent = mailAgent([pauseTurn, { text: "ok, not sending" }]);
    const paused = await agent.loop.run("go");
    const resumed = await agent
      .make()
      .resume(paused.state, { s1: { approve: false, reason: "wrong person" } });
    expect(agent.ran).toEqual(["note draft"]);
    expect(resultsOf(resumed.messages)[1]).toEqual({
      toolCallId: "s1",
      toolName: "send",
      output: "the call to send was refused by a human: wrong person",
      isError: true,
    });
    expect(resumed.state.denied).toEqual([
      { toolName: "send", args: '{"body":"","to":"bob@example.com"}', reason: "wrong person" },
    ]);
  });

  it("edited args are validated, run, and recorded in the transcript and the step record", async () => {
    const agent = mailAgent([pauseTurn, { text: "ok" }]);
    const paused = await agent.loop.run("go");
    const resumed = await agent
      .make()
      .resume(paused.state, { s1: { approve: true, args: { to: "carol@example.com" } } });
    expect(agent.ran).toEqual(["note draft", "send carol@example.com"]);
    expect(resultsOf(resumed.messages)[1]).toEqual({
      toolCallId: "s1",
      toolName: "send",
      output: "sent to carol@example.com",
      isError: false,
      // The edit leaves `body` out: it is completed with the schema's default, as a model's args are.
      editedArgs: { to: "carol@example.com", body: "" },
    });
    expect(resumed.steps[0]!.calls[1]).toMatchObject({
      by: "approval",
      args: { to: "carol@example.com", body: "" },
      editedFrom: { to: "bob@example.com", body: "" },
    });
    expect(resumed.messages[1]).toMatchObject({
      parts: [{}, { args: '{"to":"bob@example.com"}' }],
    });
  });

  it("approved calls do not go through hooks or the policy again", async () => {
    const seen: string[] = [];
    const agent = mailAgent([pauseTurn, { text: "ok" }], {
      preToolCall: [
        (call) => {
          seen.push(`hook ${call.name}`);
        },
      ],
      policy: {
        decideToolCall: ({ call }) => {
          seen.push(`policy ${call.name}`);
          return undefined;
        },
      },
    });
    const paused = await agent.loop.run("go");
    seen.length = 0;
    await agent.make().resume(paused.state, { s1: { approve: true } });
    expect(seen).toEqual([]);
  });

  it("when a step both pauses and ends the run, the run ends as ended_by_tool once the pending calls are settled", async () => {
    const agent = mailAgent([pauseTurn], {
      policy: { endsRun: ({ call }) => call.name === "note" },
    });
    const paused = await agent.loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const resumed = await agent.make().resume(paused.state, { s1: { approve: true } });
    expect(resumed.status).toBe("ended_by_tool");
    expect(resumed.endedBy).toMatchObject({ id: "n1", name: "note" });
    expect(agent.provider.remaining).toBe(0);
    expect(resumed.messages.at(-1)).toMatchObject({ role: "tool" });
  });

  it("a resumed run can pause again, and a finished conversation continues with run()", async () => {
    const agent = mailAgent([
      pauseTurn,
      { toolCalls: [{ id: "s2", name: "send", args: { to: "dan@example.com" } }] },
      { text: "both sent" },
      { text: "you're welcome" },
    ]);
    const first = await agent.loop.run("go");
    const second = await agent.make().resume(first.state, { s1: { approve: true } });
    expect(second.status).toBe("needs_approval");
    expect(second.pending?.map((p) => p.toolCallId)).toEqual(["s2"]);
    const third = await agent.make().resume(second.state, { s2: { approve: true } });
    expect(third.status).toBe("completed");
    expect(agent.ran).toEqual(["note draft", "send bob@example.com", "send dan@example.com"]);
    const next = await agent.make().run([...third.messages, { role: "user", content: "thanks" }]);
    expect(next.text).toBe("you're welcome");
  });
});

describe("resume rejects what does not fit, and runs nothing", () => {
  async function paused(options: Partial<AgentLoopOptions> = {}) {
    const agent = mailAgent([pauseTurn, { text: "ok" }], options);
    const result = await agent.loop.run("go");
    agent.ran.length = 0;
    return { agent, result };
  }

  it("every pending call must be decided", async () => {
    const { agent, result } = await paused();
    await expect(agent.make().resume(result.state, {})).rejects.toThrow(
      /call s1 \(send\) waits for a decision/,
    );
    expect(agent.ran).toEqual([]);
  });

  it("an unknown id", async () => {
    const { agent, result } = await paused();
    const error = await agent
      .make()
      .resume(result.state, { s1: { approve: true }, zz: { approve: true } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(/"zz"/);
    expect(agent.ran).toEqual([]);
  });

  it("a tool missing from the toolset", async () => {
    const { result } = await paused();
    const loop = new AgentLoop({ provider: scriptedProvider([]), tools: [], trustState: true });
    await expect(loop.resume(result.state, { s1: { approve: true } })).rejects.toThrow(
      /tool send is not in this loop's toolset/,
    );
  });

  it("edited args that fail the schema", async () => {
    const { agent, result } = await paused();
    const error = await agent
      .make()
      .resume(result.state, { s1: { approve: true, args: { to: "not an email" } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(/edited args .* to: /);
    expect(agent.ran).toEqual([]);
  });

  it("a state resumed twice (per loop without a store); a failed check does not use the state up", async () => {
    const { agent, result } = await paused();
    const loop = agent.make();
    await expect(loop.resume(result.state, {})).rejects.toThrow(ResumeError);
    await loop.resume(result.state, { s1: { approve: true } });
    await expect(loop.resume(result.state, { s1: { approve: true } })).rejects.toThrow(
      /already resumed/,
    );
    expect(agent.ran).toEqual(["send bob@example.com"]);
  });

  it("a state resumed twice through a shared store, from two loops", async () => {
    const store = memoryRunStore();
    const { agent, result } = await paused({ store });
    await agent.make().resume(result.state.runId, { s1: { approve: true } });
    // The store now holds the run's later state: the old one is refused, by value or by id.
    await expect(agent.make().resume(result.state, { s1: { approve: true } })).rejects.toThrow(
      /holds another state of run/,
    );
    await expect(
      agent.make().resume(result.state.runId, { s1: { approve: true } }),
    ).rejects.toThrow(/nothing to resume: run .* ended with status "completed"/);
    expect(agent.ran).toEqual(["send bob@example.com"]);
  });

  it("a digest made for other args or another call", async () => {
    const { agent, result } = await paused();
    const digest = result.pending![0]!.digest;
    const tampered = roundTrip(result.state);
    const call = tampered.steps[0]!.calls[1]!;
    call.args = { to: "mallory@example.com" };
    tampered.pending![0]!.args = call.args; // pending is derived from the steps: kept in step
    const error = await agent
      .make()
      .resume(tampered, { s1: { approve: true, digest } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(/digest mismatch/);
    expect(agent.ran).toEqual([]);
    await agent.make().resume(result.state, { s1: { approve: true, digest } });
    expect(agent.ran).toEqual(["send bob@example.com"]);
  });

  it("a tampered signed state, an unsigned state for a signing loop, a signed state for a loop without the key", async () => {
    const { agent, result } = await paused({ signingKey: "s3cret", allowReplay: true });
    expect(result.state.signature).toMatch(/^[0-9a-f]{64}$/);
    const tampered = roundTrip(result.state);
    (tampered.steps[0]!.calls[1]!.args as { to: string }).to = "mallory@example.com";
    await expect(agent.make().resume(tampered, { s1: { approve: true } })).rejects.toThrow(
      /signature does not match/,
    );
    const otherKey = agent.make({ signingKey: "other" });
    await expect(
      otherKey.resume(roundTrip(result.state), { s1: { approve: true } }),
    ).rejects.toThrow(/signature does not match/);
    const { signature: _s, ...unsigned } = roundTrip(result.state);
    await expect(
      agent.make().resume(unsigned as RunState, { s1: { approve: true } }),
    ).rejects.toThrow(/not signed/);
    await expect(
      agent
        .make({ signingKey: undefined })
        .resume(roundTrip(result.state), { s1: { approve: true } }),
    ).rejects.toThrow(/is signed/);
    expect(agent.ran).toEqual([]);
    await agent.make().resume(roundTrip(result.state), { s1: { approve: true } });
    expect(agent.ran).toEqual(["send bob@example.com"]);
  });

  it("an old version is migrated by a registered migration, or rejected saying which version and what the loop reads", async () => {
    const { agent, result } = await paused();
    const old = { ...roundTrip(result.state), version: 0, stateId: "old-state" } as RunState;
    const error = await agent
      .make()
      .resume(old, { s1: { approve: true } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(/version 0 and this loop reads version 3.*stateMigrations\[0\]/);
    const migrated = agent.make({
      stateMigrations: { 0: (state: RunState) => ({ ...state, version: 2 }) },
    });
    await expect(migrated.resume(old, { s1: { approve: true } })).resolves.toMatchObject({
      status: "completed",
    });
    const future = { ...roundTrip(result.state), version: 99 } as RunState;
    await expect(agent.make().resume(future, { s1: { approve: true } })).rejects.toThrow(
      /version 99, newer/,
    );
    await expect(agent.make().resume({} as RunState, {})).rejects.toThrow(
      /not a tollgate run state/,
    );
  });

  it("a finished run has nothing to resume", async () => {
    const agent = mailAgent([{ text: "hi" }]);
    const done = await agent.loop.run("go");
    await expect(agent.make().resume(done.state, {})).rejects.toThrow(
      /nothing to resume.*completed/,
    );
  });
});

describe("denial memory", () => {
  const turns = [
    { toolCalls: [{ id: "s1", name: "send", args: { to: "bob@example.com" } }] },
    {
      toolCalls: [
        { id: "s2", name: "send", args: { to: "bob@example.com" } },
        { id: "s3", name: "send", args: { to: "eve@example.com" } },
      ],
    },
    { text: "giving up" },
  ];

  it("auto-denies the same call a human refused, without asking; other args are asked", async () => {
    const agent = mailAgent(turns);
    const paused = await agent.loop.run("go");
    const again = await agent.make().resume(paused.state, { s1: { approve: false, reason: "no" } });
    expect(again.status).toBe("needs_approval");
    expect(again.pending?.map((p) => p.toolCallId)).toEqual(["s3"]);
    expect(again.steps[1]!.calls[0]).toMatchObject({
      verdict: "deny",
      by: "approval",
      reason: expect.stringMatching(/already refused in this run \(no\)/),
    });
  });

  it('with repeatDenied: "ask" it asks again', async () => {
    const agent = mailAgent(turns, { repeatDenied: "ask" });
    const paused = await agent.loop.run("go");
    const again = await agent.make().resume(paused.state, { s1: { approve: false } });
    expect(again.pending?.map((p) => p.toolCallId)).toEqual(["s2", "s3"]);
  });
});

describe("abort while tools run", () => {
  it("lists the calls that had not settled on the abort reason", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = tool({
      name: "slow",
      input: z.object({ n: z.number() }),
      execute: () => {
        started();
        return new Promise(() => {});
      },
    });
    const quick = tool({ name: "quick", input: z.object({}), execute: () => "quick" });
    const controller = new AbortController();
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { id: "q", name: "quick" },
            { id: "w", name: "slow", args: { n: 1 } },
          ],
        },
      ]),
      tools: [slow, quick],
    });
    const rejected = loop
      .run("go", { signal: controller.signal, runId: "r-abort" })
      .catch((e) => e);
    await running;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error("shutting down");
    controller.abort(reason);
    const error = (await rejected) as Error & { unsettledCalls: UnsettledCall[] };
    expect(error).toBe(reason);
    expect(error.unsettledCalls).toEqual([
      { runId: "r-abort", toolCallId: "w", toolName: "slow", args: { n: 1 } },
    ]);
  });
});

/** Runs a child process to its end (or until `until` sees its output), returning stdout. */
function child(
  args: string[],
  until?: (stdout: string) => boolean,
): { done: Promise<string>; process: ChildProcess } {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const done = new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (until?.(stdout)) resolve(stdout);
    });
    proc.stderr!.on("data", (chunk) => (stderr += chunk));
    proc.on("exit", (code, signal) =>
      code === 0 || signal === "SIGKILL"
        ? resolve(stdout)
        : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
  return { done, process: proc };
}

// Child processes take seconds each; `npm run mutate` (which runs covering tests per mutant) leaves them out.
describe.skipIf(process.env.TOLLGATE_MUTATION === "1")("across processes", () => {
  it("a second Node process resumes a state written to disk by the first", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const paused = await approvalAgent({ log }).run("pay alice");
    expect(paused.status).toBe("needs_approval");
    writeFileSync(join(dir, "state.json"), JSON.stringify(paused.state));
    const stdout = await child(["resume", join(dir, "state.json"), log]).done;
    const outcome = JSON.parse(stdout.trim());
    expect(outcome).toMatchObject({ status: "completed", text: "done" });
    expect(outcome.pid).not.toBe(process.pid);
    expect(lines(log)).toEqual(["transfer alice 10"]);
  });

  it("two concurrent resumes of one state on one file store run the call once", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const store = fileRunStore(join(dir, "store"));
    const paused = await approvalAgent({ log, store }).run("pay alice", { runId: "race" });
    const saved = await store.get("race");
    expect(saved?.stateId).toBe(paused.state.stateId);
    const attempts = await Promise.allSettled(
      [1, 2].map(() =>
        approvalAgent({ log, store: fileRunStore(join(dir, "store")), hangMs: 20 }).resume(saved!, {
          t1: { approve: true },
        }),
      ),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual(["fulfilled", "rejected"]);
    const failed = attempts.find((a) => a.status === "rejected") as PromiseRejectedResult;
    expect(failed.reason).toBeInstanceOf(ResumeError);
    expect(lines(log)).toEqual(["transfer alice 10"]);
  });

  it("a process killed mid-tool: resuming its checkpoint runs an idempotent call again and gives the other 'outcome unknown'", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const storeDir = join(dir, "store");
    const run = child(["crash", storeDir, log], (out) => out.split("started").length - 1 >= 2);
    await run.done;
    run.process.kill("SIGKILL");
    await new Promise((resolve) => run.process.once("exit", resolve));
    expect(lines(log).sort()).toEqual(["read_again", "write_once"]);

    const store = fileRunStore(storeDir, { leaseMs: 300 });
    const checkpoint = await store.get("crashing-run");
    if (!checkpoint) throw new Error("the crashed run left no checkpoint");
    expect(checkpoint.status).toBe("running");
    expect(checkpoint.steps[0]!.calls.map((c) => c.started)).toEqual([true, true]);

    const ran: string[] = [];
    const tools = ["write_once", "read_again"].map((name) =>
      tool({
        name,
        idempotent: name === "read_again",
        input: z.object({}),
        execute: () => {
          ran.push(name);
          return `${name} ok`;
        },
      }),
    );
    const provider = scriptedProvider([{ text: "recovered" }]);
    // The dead process's lease has not run out yet: the run counts as still running.
    await expect(new AgentLoop({ provider, tools, store }).resume("crashing-run")).rejects.toThrow(
      /still running/,
    );
    await new Promise((resolve) => setTimeout(resolve, 350));
    const result: RunResult = await new AgentLoop({ provider, tools, store }).resume(checkpoint);
    expect(ran).toEqual(["read_again"]);
    expect(result.status).toBe("completed");
    expect(resultsOf(result.messages)).toEqual([
      {
        toolCallId: "w1",
        toolName: "write_once",
        output: "outcome unknown: the process stopped while this call ran",
        isError: true,
      },
      { toolCallId: "r1", toolName: "read_again", output: "read_again ok", isError: false },
    ]);
    await expect(
      new AgentLoop({ provider: scriptedProvider([]), tools, store }).resume(checkpoint),
    ).rejects.toThrow(/holds another state/);
  });
});
