import { readFileSync } from "node:fs";
import {
  AgentLoop,
  type AgentLoopOptions,
  memoryRunStore,
  ResumeError,
  type RunState,
  type RunStore,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * A tool's output is stored once in a state: a finished step's results live in the tool
 * message it wrote, and its record names that message (`toolMessage`) instead of holding them
 * again. `RunResult.steps` keeps them, and so does a resumed run. States of version 2 (each
 * output twice) still resume.
 */

const MB = 1024 * 1024;
const BIG = "x".repeat(5 * MB);

type Turns = Parameters<typeof scriptedProvider>[0];

/** `fetch_page` returns 5 MB; `send` needs approval. */
function bigAgent(turns: Turns, options: Partial<AgentLoopOptions> = {}) {
  const ran: string[] = [];
  const fetchPage = tool({
    name: "fetch_page",
    input: z.object({ url: z.string() }),
    execute: ({ url }) => {
      ran.push(`fetch ${url}`);
      return BIG;
    },
  });
  const send = tool({
    name: "send",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      ran.push(`send ${to}`);
      return `sent to ${to}`;
    },
  });
  const provider = scriptedProvider(turns);
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({ provider, tools: [fetchPage, send], ...options, ...extra });
  return { make, ran };
}

const TURNS: Turns = [
  { toolCalls: [{ name: "fetch_page", args: { url: "https://example.com" }, id: "f1" }] },
  { toolCalls: [{ name: "send", args: { to: "bob" }, id: "s1" }] },
  { text: "Sent." },
];

const sizeOf = (state: unknown) => JSON.stringify(state).length;
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe("a tool output is stored once", () => {
  it("a 5 MB output makes a 5 MB paused state, not 10, and the resumed run still has it", async () => {
    const agent = bigAgent(TURNS, { trustState: true });
    const paused = await agent.make().run("Fetch the page, then mail Bob");
    expect(paused.status).toBe("needs_approval");
    expect(sizeOf(paused.state)).toBeGreaterThan(5 * MB);
    expect(sizeOf(paused.state)).toBeLessThan(5.1 * MB);
    // The result's own records keep the output; the state names the tool message instead.
    expect(paused.steps[0]!.calls[0]!.result!.output).toBe(BIG);
    expect(paused.state.steps[0]!.toolMessage).toBe(2);
    expect(paused.state.steps[0]!.calls[0]!.result).toBeUndefined();
    expect(paused.state.messages[2]).toMatchObject({ role: "tool", results: [{ output: BIG }] });

    const done = await agent.make().resume(copy(paused.state), { s1: { approve: true } });
    expect(done.status).toBe("completed");
    expect(agent.ran).toEqual(["fetch https://example.com", "send bob"]);
    expect(done.steps[0]!.calls[0]!.result).toEqual({
      toolCallId: "f1",
      toolName: "fetch_page",
      output: BIG,
      isError: false,
    });
    expect(done.messages[2]).toEqual({ role: "tool", results: [done.steps[0]!.calls[0]!.result] });
    expect(sizeOf(done.state)).toBeLessThan(5.1 * MB);
    expect(done.state.steps.map((step) => step.toolMessage)).toEqual([2, 4, undefined]);
  });

  it("each checkpoint a store writes holds it once too", async () => {
    const inner = memoryRunStore();
    const sizes: number[] = [];
    const store: RunStore = {
      ...inner,
      get: (runId) => inner.get(runId),
      acquire: (runId) => inner.acquire(runId),
      renew: (lease) => inner.renew(lease),
      release: (lease) => inner.release(lease),
      claim: (stateId) => inner.claim(stateId),
      put: (state, lease) => {
        sizes.push(sizeOf(state));
        return inner.put(state, lease);
      },
    };
    const agent = bigAgent(TURNS, { store });
    const paused = await agent.make().run("Fetch the page, then mail Bob", { runId: "big-run" });
    const done = await agent.make().resume("big-run", { s1: { approve: true } });
    expect([paused.status, done.status]).toEqual(["needs_approval", "completed"]);
    expect(sizes.length).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBeLessThan(5.1 * MB);
  });
});

describe("a version 2 state (each output twice) still resumes", () => {
  /** A paused state the previous release wrote: two `read_page` calls settled, `send_mail` waits. */
  const V2 = JSON.parse(
    readFileSync(new URL("../fixtures/states/v2-paused.json", import.meta.url), "utf8"),
  ) as RunState;
  const PAGE = "<html>https://a.example lorem ipsum";

  function pageAgent(options: Partial<AgentLoopOptions>) {
    const ran: string[] = [];
    const readPage = tool({
      name: "read_page",
      input: z.object({ url: z.string() }),
      execute: ({ url }) => `<html>${url}</html>`,
    });
    const sendMail = tool({
      name: "send_mail",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => {
        ran.push(`send ${to}`);
        return `sent to ${to}`;
      },
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([{ text: "Mailed Bob." }]),
      tools: [readPage, sendMail],
      ...options,
    });
    return { loop, ran };
  }

  it("is upgraded on resume with no migration registered, and written back as version 3, each output once", async () => {
    expect(V2.version).toBe(2);
    expect(JSON.stringify(V2).split(PAGE)).toHaveLength(3); // in the record and in the message
    const { loop, ran } = pageAgent({ trustState: true });
    const done = await loop.resume(copy(V2), { call_3: { approve: true } });
    expect(done.status).toBe("completed");
    expect(ran).toEqual(["send bob@example.com"]);
    expect(done.steps[0]!.calls.map((call) => call.result!.output)).toEqual(
      (V2.messages[2] as { results: { output: unknown }[] }).results.map((r) => r.output),
    );
    expect(done.state.version).toBe(3);
    expect(JSON.stringify(done.state).split(PAGE)).toHaveLength(2); // once
    expect(done.state.steps.map((step) => step.toolMessage)).toEqual([2, 4, undefined]);

    // Its digests still bind a decision to its pending call: they were made over version 2.
    const byDigest = pageAgent({ allowReplay: true });
    const [pending] = V2.pending!;
    const again = await byDigest.loop.resume(copy(V2), {
      call_3: { approve: true, digest: pending!.digest },
    });
    expect(again.status).toBe("completed");
    expect(byDigest.ran).toEqual(["send bob@example.com"]);
  });
});

describe("a step's link to its tool message is checked before anything runs", () => {
  const damaged: [string, (state: RunState) => void, string][] = [
    [
      "a message that is not a tool message",
      (state) => {
        state.steps[0]!.toolMessage = 0;
      },
      "the state is damaged at steps[0].toolMessage: messages[0] is not a tool message",
    ],
    [
      "a result kept beside the link",
      (state) => {
        state.steps[0]!.calls[0]!.result = {
          toolCallId: "f1",
          toolName: "fetch_page",
          output: "forged",
          isError: false,
        };
      },
      "the state is damaged at steps[0].toolMessage: calls[0] has a result of its own",
    ],
    [
      "the open step naming one",
      (state) => {
        state.steps[1]!.toolMessage = 2;
      },
      "the state is damaged at steps[1].toolMessage: the open step keeps its results in its record",
    ],
  ];
  for (const [what, damage, message] of damaged) {
    it(`refuses ${what}, and runs nothing`, async () => {
      const agent = bigAgent(TURNS, { trustState: true });
      const paused = await agent.make().run("Fetch the page, then mail Bob");
      const state = copy(paused.state);
      damage(state);
      const error = await agent
        .make()
        .resume(state, { s1: { approve: true } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeError);
      expect((error as Error).message).toBe(message);
      expect(agent.ran).toEqual(["fetch https://example.com"]);
    });
  }
});
