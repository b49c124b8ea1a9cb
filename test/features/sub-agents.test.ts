import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type ModelRequest,
  memoryRunStore,
  ResumeError,
  RUN_STATE_SCHEMA,
  type RunResult,
  type RunState,
  TollgateError,
  ToolExecutionError,
  type ToolResult,
  tool,
} from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { functionProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectTranscriptInvariant } from "../support/oracle.js";
import { researchTeam } from "../support/research-team.js";
import { runs, scaled } from "../support/runs.js";

/**
 * Agents as tools (DESIGN section 11): `loop.asTool()` makes a loop a tool of another loop.
 * The parent's gate decides whether the sub-agent runs, the sub-agent's gate decides its
 * tools; events, usage, abort and failures reach the parent; a sub-agent that pauses for
 * approval pauses its parent, and one resume of the parent continues both.
 */

const USAGE = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };

/** The text of a request's first user message: the run's prompt. */
const promptOf = (request: ModelRequest) => {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

/** The results of a request's last message, when it is a tool message. */
const lastResults = (request: ModelRequest): ToolResult[] | undefined => {
  const last = request.messages[request.messages.length - 1];
  return last?.role === "tool" ? last.results : undefined;
};

/**
 * A writer sub-agent: asked to write a path (the prompt), it calls `write_file` (which needs
 * approval unless told otherwise), then answers with what the tool said. It answers from the
 * transcript, so a new instance continues a paused run of another.
 */
function writer(options: Partial<AgentLoopOptions> & { approval?: boolean; callId?: string } = {}) {
  const { approval = true, callId = "w1", ...loopOptions } = options;
  const written: string[] = [];
  const writeFile = tool({
    name: "write_file",
    description: "Writes a file",
    input: z.object({ path: z.string() }),
    needsApproval: approval,
    execute: ({ path }) => {
      written.push(path);
      return `wrote ${path}`;
    },
  });
  const provider = functionProvider((request) => {
    const results = lastResults(request);
    if (results) {
      const result = results[0]!;
      return { text: `${result.isError ? "failed" : "ok"}: ${result.output}`, usage: USAGE };
    }
    return {
      toolCalls: [{ id: callId, name: "write_file", args: { path: promptOf(request) } }],
      usage: USAGE,
    };
  });
  const loop = new AgentLoop({ provider, tools: [writeFile], ...loopOptions });
  return { loop, written, provider };
}

/**
 * A parent that makes the given calls in its first step, then answers with every result it
 * got, as "name=output" lines.
 */
function parent(
  tools: AgentLoopOptions["tools"],
  calls: { id: string; name: string; args: unknown }[],
  options: Partial<AgentLoopOptions> = {},
) {
  const provider = functionProvider((request) => {
    const results = lastResults(request);
    if (!results) return { toolCalls: calls, usage: USAGE };
    return {
      text: results.map((result) => `${result.toolName}=${String(result.output)}`).join("\n"),
      usage: USAGE,
    };
  });
  return new AgentLoop({ provider, tools, ...options } as AgentLoopOptions);
}

/** The output of a call in a run's transcript. */
function outputOf(result: RunResult, toolCallId: string): ToolResult | undefined {
  for (const message of result.messages) {
    if (message.role !== "tool") continue;
    const found = message.results.find((r) => r.toolCallId === toolCallId);
    if (found) return found;
  }
  return undefined;
}

const call = (id: string, path: string, name = "writer") => ({ id, name, args: { prompt: path } });

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("loop.asTool(): a loop as a tool", () => {
  it("is a tool built by tool(): frozen, named, its input { prompt } by default", () => {
    const { loop } = writer();
    const built = loop.asTool({ name: "writer", description: "Writes files" });
    expect(Object.isFrozen(built)).toBe(true);
    expect(built.name).toBe("writer");
    expect(built.description).toBe("Writes files");
    expect(built.inputSchema).toMatchObject({
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
    });
    expect(built.needsApproval).toBe(false);
  });

  it("runs the sub-agent on args.prompt; its final text is the call's output", async () => {
    const sub = writer({ approval: false });
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w" })],
      [call("p1", "a.txt")],
    );
    const result = await top.run("go");
    expect(result.status).toBe("completed");
    expect(promptOf(sub.provider.requests[0]!)).toBe("a.txt");
    expect(sub.written).toEqual(["a.txt"]);
    expect(outputOf(result, "p1")).toMatchObject({ output: "ok: wrote a.txt", isError: false });
  });

  it("with an input schema, the sub-run's prompt is prompt(args), else the args as JSON", async () => {
    const input = z.object({ file: z.string(), times: z.number().default(1) });
    const viaPrompt = writer({ approval: false });
    const viaJson = writer({ approval: false });
    const top = parent(
      [
        viaPrompt.loop.asTool({
          name: "by_prompt",
          description: "w",
          input,
          prompt: ({ file, times }) => `${file} x${times}`,
        }),
        viaJson.loop.asTool({ name: "by_json", description: "w", input }),
      ],
      [
        { id: "p1", name: "by_prompt", args: { file: "a.txt" } },
        { id: "p2", name: "by_json", args: { file: "b.txt" } },
      ],
    );
    await top.run("go");
    expect(viaPrompt.written).toEqual(["a.txt x1"]);
    expect(viaJson.written).toEqual(['{"file":"b.txt","times":1}']);
  });

  it("the sub-run's deps come from deps(ctx), given the parent's call context", async () => {
    const seen: unknown[] = [];
    const probe = tool({
      name: "probe",
      input: z.object({}),
      execute: (_args, ctx) => {
        seen.push(ctx.deps);
        return "ok";
      },
    });
    const sub = new AgentLoop<{ user: string }>({
      provider: functionProvider((request) =>
        lastResults(request) ? { text: "done" } : { toolCalls: [{ name: "probe", args: {} }] },
      ),
      tools: [probe],
      deps: { user: "loop's own" },
    });
    const agent = sub.asTool<{ tenant: string }>({
      name: "sub",
      description: "s",
      deps: (ctx) => ({ user: `${ctx.deps.tenant} via ${ctx.toolCallId}` }),
    });
    const top = new AgentLoop<{ tenant: string }>({
      provider: functionProvider((request) =>
        lastResults(request)
          ? { text: "done" }
          : { toolCalls: [{ id: "p1", name: "sub", args: { prompt: "x" } }] },
      ),
      tools: [agent],
      deps: { tenant: "acme" },
    });
    await top.run("go");
    expect(seen).toEqual([{ user: "acme via p1" }]);
  });
});

describe("the parent's gate decides whether the sub-agent runs", () => {
  it("a parent hook that blocks the call: the sub-agent never runs", async () => {
    const sub = writer({ approval: false });
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")], {
      preToolCall: [(c) => (c.name === "writer" ? { block: "no delegation" } : undefined)],
    });
    const result = await top.run("go");
    expect(sub.provider.requests).toEqual([]);
    expect(outputOf(result, "p1")).toMatchObject({ output: "no delegation", isError: true });
  });

  it("a policy DENY: the sub-agent never runs", async () => {
    const sub = writer({ approval: false });
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")], {
      policy: { decideToolCall: () => "DENY" },
    });
    await top.run("go");
    expect(sub.provider.requests).toEqual([]);
  });

  it("asTool({ needsApproval }): the parent pauses before the sub-agent runs; approved, it runs", async () => {
    const sub = writer({ approval: false });
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w", needsApproval: true })],
      [call("p1", "a")],
      { trustState: true },
    );
    const paused = await top.run("go");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toMatchObject([{ toolCallId: "p1", toolName: "writer" }]);
    expect(paused.pending![0]!.subRun).toBeUndefined();
    expect(sub.provider.requests).toEqual([]);
    const done = await top.resume(paused.state, { p1: { approve: true } });
    expect(done.status).toBe("completed");
    expect(sub.written).toEqual(["a"]);
  });

  it("the sub-agent's own gate decides its tools; the parent's hooks never see them", async () => {
    const parentSaw: string[] = [];
    const sub = writer({
      approval: false,
      preToolCall: [() => ({ block: "the writer's own hook says no" })],
    });
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")], {
      preToolCall: [(c) => void parentSaw.push(c.name)],
    });
    const result = await top.run("go");
    expect(parentSaw).toEqual(["writer"]);
    expect(sub.written).toEqual([]);
    expect(outputOf(result, "p1")?.output).toBe("failed: the writer's own hook says no");
  });
});

describe("events, usage, abort and failures reach the parent", () => {
  it("the sub-run's events come to the parent's listeners as sub-run events, tagged with the call and the sub-run's id", async () => {
    const sub = writer({ approval: false });
    const events: LoopEvent[] = [];
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")], {
      onEvent: (event) => events.push(event),
    });
    const result = await top.run("go", { runId: "top" });
    const wrapped = events.filter((e) => e.type === "sub-run");
    expect(wrapped.length).toBeGreaterThan(5);
    for (const event of wrapped) {
      expect(event).toMatchObject({ runId: "top", step: 0, toolCallId: "p1", toolName: "writer" });
      expect(event.event.runId).toBe("top/p1");
    }
    expect(wrapped.map((e) => e.event.type)).toEqual([
      "run-start",
      "step-start",
      "model-response",
      "tool-call",
      "tool-decision",
      "tool-result",
      "step-finish",
      "step-start",
      "text-delta",
      "model-response",
      "step-finish",
      "run-finish",
    ]);
    // They come while the call runs: after its decision, before its result.
    const types = events.map((e) => (e.type === "sub-run" ? "sub" : e.type));
    const first = types.indexOf("sub");
    expect(types[first - 1]).toBe("tool-decision");
    expect(types[types.lastIndexOf("sub") + 1]).toBe("tool-result");
    // Existing events keep their shapes: the parent's own calls are only its own.
    expect(events.filter((e) => e.type === "tool-call").map((e) => e.toolCallId)).toEqual(["p1"]);
    expect(result.status).toBe("completed");
  });

  it("stream() yields them too, and a sub-sub-agent's are wrapped once per level", async () => {
    const inner = writer({ approval: false });
    const middle = new AgentLoop({
      provider: functionProvider((request) =>
        lastResults(request)
          ? { text: "middle done" }
          : { toolCalls: [{ id: "m1", name: "writer", args: { prompt: "deep.txt" } }] },
      ),
      tools: [inner.loop.asTool({ name: "writer", description: "w" })],
    });
    const top = parent(
      [middle.asTool({ name: "middle", description: "m" })],
      [call("p1", "x", "middle")],
    );
    const nested: LoopEvent[] = [];
    for await (const event of top.stream("go", { runId: "top" })) {
      if (event.type === "sub-run" && event.event.type === "sub-run") nested.push(event);
    }
    expect(nested.length).toBeGreaterThan(0);
    const first = nested[0] as Extract<LoopEvent, { type: "sub-run" }>;
    const inside = first.event as Extract<LoopEvent, { type: "sub-run" }>;
    expect(first.toolCallId).toBe("p1");
    expect(inside.runId).toBe("top/p1");
    expect(inside.toolCallId).toBe("m1");
    expect(inside.event.runId).toBe("top/p1/m1");
    expect(inner.written).toEqual(["deep.txt"]);
  });

  it("usage adds up into the parent's, at every depth", async () => {
    const inner = writer({ approval: false });
    const middle = new AgentLoop({
      provider: functionProvider((request) =>
        lastResults(request)
          ? { text: "middle done", usage: USAGE }
          : { toolCalls: [{ id: "m1", name: "writer", args: { prompt: "d" } }], usage: USAGE },
      ),
      tools: [inner.loop.asTool({ name: "writer", description: "w" })],
    });
    const top = parent(
      [middle.asTool({ name: "middle", description: "m" })],
      [call("p1", "x", "middle")],
    );
    const result = await top.run("go");
    // Two model calls at each of three levels.
    expect(result.usage).toEqual({ inputTokens: 18, outputTokens: 12, totalTokens: 30 });
  });

  it("the parent's abort aborts the sub-run: its tools see the signal, the parent rejects with the reason", async () => {
    let subSignal: AbortSignal | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const hang = tool({
      name: "hang",
      input: z.object({}),
      execute: (_args, ctx) => {
        subSignal = ctx.signal;
        started();
        return new Promise(() => {});
      },
    });
    const sub = new AgentLoop({
      provider: functionProvider(() => ({ toolCalls: [{ name: "hang", args: {} }] })),
      tools: [hang],
    });
    const top = parent([sub.asTool({ name: "sub", description: "s" })], [call("p1", "x", "sub")]);
    const controller = new AbortController();
    const run = rejection(top.run("go", { signal: controller.signal }));
    await running;
    const reason = new Error("user cancelled");
    controller.abort(reason);
    expect(await run).toBe(reason);
    expect(subSignal?.aborted).toBe(true);
  });

  it("a sub-run that fails gives the parent's call an error result; the parent goes on", async () => {
    const sub = new AgentLoop({
      provider: functionProvider(() => {
        throw new Error("model down");
      }),
      tools: [],
    });
    const top = parent([sub.asTool({ name: "sub", description: "s" })], [call("p1", "x", "sub")]);
    const result = await top.run("go");
    expect(result.status).toBe("completed");
    expect(outputOf(result, "p1")).toMatchObject({ isError: true, output: "model down" });
  });

  it('under toolErrors: "throw" the parent rejects with ToolExecutionError, the sub-run\'s error as cause', async () => {
    const failure = new Error("model down");
    const sub = new AgentLoop({
      provider: functionProvider(() => {
        throw failure;
      }),
      tools: [],
    });
    const top = parent([sub.asTool({ name: "sub", description: "s" })], [call("p1", "x", "sub")], {
      toolErrors: "throw",
    });
    const error = await rejection(top.run("go"));
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as ToolExecutionError).cause).toBe(failure);
  });

  it("a sub-run that a hook stopped is an error result naming the reason", async () => {
    const sub = writer({
      approval: false,
      preToolCall: [() => ({ stop: true, stopReason: "out of scope" })],
    });
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")]);
    const result = await top.run("go");
    expect(outputOf(result, "p1")).toMatchObject({
      isError: true,
      output: "sub-agent writer was stopped: out of scope",
    });
  });
});

describe("misconfiguration fails closed", () => {
  const { loop } = writer();
  it.each([
    ["no description", { name: "w" }, /give a description/],
    ["a misspelt option", { name: "w", description: "d", inptu: {} }, /did you mean `input`/],
    [
      "deps that is not a function",
      { name: "w", description: "d", deps: { a: 1 } },
      /`deps` must be a function/,
    ],
    [
      "prompt that is not a function",
      { name: "w", description: "d", prompt: "x" },
      /`prompt` must be a function/,
    ],
    ["a bad name", { name: "no spaces", description: "d" }, /name "no spaces" is invalid/],
  ])("%s is a TypeError", (_what, options, message) => {
    expect(() => loop.asTool(options as never)).toThrow(TypeError);
    expect(() => loop.asTool(options as never)).toThrow(message);
  });

  it("a sub-agent loop with its own store is a TypeError (its states live in its parent's)", () => {
    const { loop: stored } = writer({ store: memoryRunStore() });
    expect(() => stored.asTool({ name: "w", description: "d" })).toThrow(
      /give the store to the parent loop/,
    );
  });

  it("prompt(args) returning something else: the call fails, the sub-agent never runs", async () => {
    const sub = writer({ approval: false });
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w", prompt: () => 42 as never })],
      [call("p1", "a")],
    );
    const result = await top.run("go");
    expect(sub.provider.requests).toEqual([]);
    expect(outputOf(result, "p1")?.output).toMatch(
      /prompt\(args\) must return a string or messages/,
    );
  });

  it("run outside a loop (no parent call), a sub-agent that pauses rejects; nothing of it ran", async () => {
    const sub = writer();
    const built = sub.loop.asTool({ name: "writer", description: "w" });
    const ctx = {
      deps: undefined,
      toolCallId: "x",
      toolName: "writer",
      retry: 0,
      maxRetries: 1,
      step: 0,
      signal: new AbortController().signal,
      rawArgs: "{}",
    };
    const error = await rejection(Promise.resolve(built.execute({ prompt: "a" }, ctx)));
    expect(error).toBeInstanceOf(TollgateError);
    expect((error as Error).message).toMatch(
      /paused for approval, but its call was not run by an AgentLoop/,
    );
    expect(sub.written).toEqual([]);
    const plain = writer({ approval: false });
    const direct = plain.loop.asTool({ name: "writer", description: "w" });
    await expect(direct.execute({ prompt: "b" }, ctx)).resolves.toBe("ok: wrote b");
  });
});

describe("a sub-agent that pauses pauses its parent", () => {
  async function pausedTop(
    options: Partial<AgentLoopOptions> = {},
    subOptions: Partial<AgentLoopOptions> = {},
  ) {
    const sub = writer(subOptions);
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w" })],
      [call("p1", "a.txt")],
      options,
    );
    const paused = await top.run("go", { runId: "top" });
    return { sub, top, paused };
  }

  it("status needs_approval; pending lists the sub-run's call, naming the sub-run; the state holds the sub-run's", async () => {
    const { sub, paused } = await pausedTop();
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toEqual([
      {
        toolCallId: "w1",
        toolName: "write_file",
        args: { path: "a.txt" },
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        subRun: { runId: "top/p1", path: ["p1"] },
      },
    ]);
    expect(sub.written).toEqual([]);
    const open = paused.state.steps[0]!.calls[0]!;
    expect(open).toMatchObject({ toolCallId: "p1", verdict: "allow" });
    expect(open.result).toBeUndefined();
    expect(open.subRun).toMatchObject({
      runId: "top/p1",
      status: "needs_approval",
      parent: { runId: "top", toolCallId: "p1" },
    });
    // The parent's transcript ends with its call, unanswered until resume.
    expect(paused.messages.at(-1)?.role).toBe("assistant");
  });

  it("the state is JSON and its schema accepts it", async () => {
    const { paused } = await pausedTop();
    const json = JSON.parse(JSON.stringify(paused.state));
    expect(json).toEqual(paused.state);
    const validator = new Validator(RUN_STATE_SCHEMA as never, "2020-12", false);
    expect(validator.validate(json).valid).toBe(true);
    // The nested state is checked as a state: a damaged one is refused.
    json.steps[0].calls[0].subRun.steps = "nope";
    expect(validator.validate(json).valid).toBe(false);
  });

  it("one resume with the nested call's decision continues the sub-run, then the parent", async () => {
    const { sub, top, paused } = await pausedTop({ trustState: true });
    const events: LoopEvent[] = [];
    top.on("sub-run", (event) => void events.push(event));
    const done = await top.resume(JSON.parse(JSON.stringify(paused.state)), {
      w1: { approve: true },
    });
    expect(done.status).toBe("completed");
    expect(sub.written).toEqual(["a.txt"]);
    expect(outputOf(done, "p1")).toMatchObject({ output: "ok: wrote a.txt", isError: false });
    expect(done.text).toBe("writer=ok: wrote a.txt");
    const decision = events.find((e) => e.type === "sub-run" && e.event.type === "tool-decision");
    expect(decision).toMatchObject({
      event: { runId: "top/p1", verdict: "allow", by: "approval" },
    });
    expect(done.state.steps[0]!.calls[0]!.subRun).toBeUndefined();
  });

  it("a refusal reaches the sub-run: its tool never runs, the sub-agent answers, the parent goes on", async () => {
    const { sub, top, paused } = await pausedTop({ trustState: true });
    const done = await top.resume(paused.state, { w1: { approve: false, reason: "not now" } });
    expect(sub.written).toEqual([]);
    expect(outputOf(done, "p1")?.output).toBe(
      "failed: the call to write_file was refused by a human: not now",
    );
  });

  it("edited args reach the sub-run's call", async () => {
    const { sub, top, paused } = await pausedTop({ trustState: true });
    await top.resume(paused.state, { w1: { approve: true, args: { path: "b.txt" } } });
    expect(sub.written).toEqual(["b.txt"]);
  });

  it("by value without a signature, decisions carry the digests of pending; a digest not for this state is refused, nothing runs", async () => {
    const { sub, top, paused } = await pausedTop({ allowReplay: true });
    const digest = paused.pending![0]!.digest;
    const nested = paused.state.steps[0]!.calls[0]!.subRun as unknown as RunState;
    const ownDigest = nested.pending![0]!.digest; // the sub-run's own: bound to its state only
    expect(ownDigest).not.toBe(digest);
    const wrong = await rejection(
      top.resume(paused.state, { w1: { approve: true, digest: ownDigest } }),
    );
    expect(wrong).toBeInstanceOf(ResumeError);
    expect((wrong as Error).message).toMatch(/digest mismatch/);
    expect(sub.written).toEqual([]);
    const done = await top.resume(paused.state, { w1: { approve: true, digest } });
    expect(done.status).toBe("completed");
    expect(sub.written).toEqual(["a.txt"]);
  });

  it("signed with the parent's key, a changed nested state is refused; nothing runs", async () => {
    const { sub, top, paused } = await pausedTop({ signingKey: "k", allowReplay: true });
    expect(paused.state.signature).toMatch(/^[0-9a-f]{64}$/);
    const tampered = JSON.parse(JSON.stringify(paused.state));
    tampered.steps[0].calls[0].subRun.steps[0].calls[0].args = { path: "/etc/passwd" };
    const error = await rejection(top.resume(tampered, { w1: { approve: true } }));
    expect((error as Error).message).toMatch(/signature does not match/);
    expect(sub.written).toEqual([]);
    await top.resume(paused.state, { w1: { approve: true } });
    expect(sub.written).toEqual(["a.txt"]);
  });

  it("a sub-agent with its own signingKey signs its state; the parent's resume checks that too", async () => {
    // A sub-agent's states are claimed by its parent's resume: replay is the parent's to refuse.
    const sub = writer({ signingKey: "sub-key", allowReplay: true });
    const top = parent([sub.loop.asTool({ name: "writer", description: "w" })], [call("p1", "a")], {
      trustState: true,
    });
    const paused = await top.run("go");
    const tampered = JSON.parse(JSON.stringify(paused.state));
    expect(tampered.steps[0].calls[0].subRun.signature).toMatch(/^[0-9a-f]{64}$/);
    tampered.steps[0].calls[0].subRun.steps[0].calls[0].args = { path: "evil" };
    tampered.pending[0].args = { path: "evil" }; // the parent's list, derived from the steps, kept in step
    const error = await rejection(top.resume(tampered, { w1: { approve: true } }));
    expect((error as Error).message).toMatch(
      /in the sub-run of call p1 \(writer\): the state's signature does not match/,
    );
    expect(sub.written).toEqual([]);
  });

  it("every nested pending call needs a decision, and no other id is taken", async () => {
    const { sub, top, paused } = await pausedTop({ trustState: true });
    const missing = await rejection(top.resume(paused.state, {}));
    expect((missing as Error).message).toBe(
      "in the sub-run of call p1 (writer): call w1 (write_file) waits for a decision; give { approve: true } or { approve: false }",
    );
    const unknown = await rejection(
      top.resume(paused.state, { w1: { approve: true }, zz: { approve: true } }),
    );
    expect((unknown as Error).message).toBe('no pending call has the id "zz"; pending: p1/w1');
    // The parent's own call is not pending: it waits on its sub-run.
    const own = await rejection(top.resume(paused.state, { p1: { approve: true } }));
    expect((own as Error).message).toBe('no pending call has the id "p1"; pending: p1/w1');
    expect(sub.written).toEqual([]);
    await top.resume(paused.state, { "p1/w1": { approve: true } });
    expect(sub.written).toEqual(["a.txt"]);
  });

  it("two sub-runs whose calls share an id: a bare id is refused, saying to key by path", async () => {
    const sub = writer();
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w" })],
      [call("p1", "a"), call("p2", "b")],
      { trustState: true },
    );
    const paused = await top.run("go");
    expect(paused.pending!.map((p) => [p.toolCallId, p.subRun?.path])).toEqual([
      ["w1", ["p1"]],
      ["w1", ["p2"]],
    ]);
    expect(new Set(paused.pending!.map((p) => p.digest)).size).toBe(2);
    const error = await rejection(top.resume(paused.state, { w1: { approve: true } }));
    expect((error as Error).message).toBe(
      '2 pending calls have the id "w1" (in different sub-runs); key each decision by its path: "p1/w1", "p2/w1"',
    );
    const done = await top.resume(paused.state, {
      "p1/w1": { approve: true },
      "p2/w1": { approve: false },
    });
    expect(sub.written).toEqual(["a"]);
    expect(done.text).toBe(
      "writer=ok: wrote a\nwriter=failed: the call to write_file was refused by a human",
    );
  });

  it("the parent's own pending call and a sub-run's wait together; one resume decides both", async () => {
    const sub = writer();
    const paid: string[] = [];
    const pay = tool({
      name: "pay",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => {
        paid.push(to);
        return "paid";
      },
    });
    const top = parent(
      [sub.loop.asTool({ name: "writer", description: "w" }), pay],
      [call("p1", "a"), { id: "pay1", name: "pay", args: { to: "bo" } }],
      { trustState: true },
    );
    const paused = await top.run("go");
    expect(paused.pending!.map((p) => p.toolCallId)).toEqual(["w1", "pay1"]);
    const done = await top.resume(paused.state, { w1: { approve: true }, pay1: { approve: true } });
    expect(done.status).toBe("completed");
    expect(sub.written).toEqual(["a"]);
    expect(paid).toEqual(["bo"]);
  });

  it("a sub-run that pauses again pauses the parent again", async () => {
    let asked = 0;
    const writeFile = tool({
      name: "write_file",
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => `wrote ${path}`,
    });
    const sub = new AgentLoop({
      provider: functionProvider(() =>
        ++asked <= 2
          ? { toolCalls: [{ id: `w${asked}`, name: "write_file", args: { path: `f${asked}` } }] }
          : { text: "wrote both" },
      ),
      tools: [writeFile],
    });
    const top = parent([sub.asTool({ name: "writer", description: "w" })], [call("p1", "x")], {
      trustState: true,
    });
    const first = await top.run("go");
    expect(first.pending!.map((p) => p.toolCallId)).toEqual(["w1"]);
    const second = await top.resume(first.state, { w1: { approve: true } });
    expect(second.status).toBe("needs_approval");
    expect(second.pending!.map((p) => p.toolCallId)).toEqual(["w2"]);
    const done = await top.resume(second.state, { w2: { approve: true } });
    expect(done.text).toBe("writer=wrote both");
  });

  it("two levels deep: the pending call names the whole path; one resume finishes all three runs", async () => {
    const inner = writer();
    const middle = new AgentLoop({
      provider: functionProvider((request) =>
        lastResults(request)
          ? { text: `middle got ${lastResults(request)![0]!.output}` }
          : { toolCalls: [{ id: "m1", name: "writer", args: { prompt: "deep.txt" } }] },
      ),
      tools: [inner.loop.asTool({ name: "writer", description: "w" })],
    });
    const top = parent(
      [middle.asTool({ name: "middle", description: "m" })],
      [call("p1", "x", "middle")],
      {
        trustState: true,
      },
    );
    const paused = await top.run("go", { runId: "top" });
    expect(paused.pending).toMatchObject([
      { toolCallId: "w1", subRun: { runId: "top/p1/m1", path: ["p1", "m1"] } },
    ]);
    const done = await top.resume(paused.state, { w1: { approve: true } });
    expect(inner.written).toEqual(["deep.txt"]);
    expect(done.text).toBe("middle=middle got ok: wrote deep.txt");
  });

  it("the state resumes once: a second resume is refused and runs nothing", async () => {
    const { sub, top, paused } = await pausedTop({ trustState: true });
    await top.resume(paused.state, { w1: { approve: true } });
    const again = await rejection(top.resume(paused.state, { w1: { approve: true } }));
    expect(again).toBeInstanceOf(ResumeError);
    expect(sub.written).toEqual(["a.txt"]);
  });

  it("the nested state cannot be resumed on its own, around its parent", async () => {
    const { sub, paused } = await pausedTop({}, { allowReplay: true });
    const nested = paused.state.steps[0]!.calls[0]!.subRun as unknown as RunState;
    const error = await rejection(
      sub.loop.resume(nested, { w1: { approve: true, digest: nested.pending![0]!.digest } }),
    );
    expect((error as Error).message).toBe(
      "this state is the paused sub-run of call p1 in run top: it resumes only with its parent; resume the parent's state",
    );
    expect(sub.written).toEqual([]);
  });

  it("a parent loop whose tool of that name is not a sub-agent, or lacks it, refuses; nothing runs", async () => {
    const { paused } = await pausedTop();
    const impostor = tool({
      name: "writer",
      input: z.object({ prompt: z.string() }),
      execute: () => "x",
    });
    const plain = parent([impostor], [], { trustState: true });
    const error = await rejection(plain.resume(paused.state, { w1: { approve: true } }));
    expect((error as Error).message).toBe(
      "call p1 waits on a paused sub-run, but tool writer of this loop is not a sub-agent (build it with loop.asTool())",
    );
    const none = parent([], [], { trustState: true });
    const missing = await rejection(none.resume(paused.state, { w1: { approve: true } }));
    expect((missing as Error).message).toMatch(/^tool writer is not in this loop's toolset/);
  });

  it("a new parent and sub-agent (as in another process) resume the JSON state", async () => {
    const { paused } = await pausedTop();
    const saved = JSON.stringify(paused.state);
    const pending = paused.pending!;
    const fresh = writer();
    const top = parent(
      [fresh.loop.asTool({ name: "writer", description: "w" })],
      [call("p1", "a.txt")],
      { allowReplay: true },
    );
    const decisions = Object.fromEntries(
      pending.map((p) => [p.toolCallId, { approve: true as const, digest: p.digest }]),
    );
    const done = await top.resume(JSON.parse(saved), decisions);
    expect(done.status).toBe("completed");
    expect(fresh.written).toEqual(["a.txt"]);
  });
});

/** Runs the sub-agent child process to its end (or until `until` sees its output), returning stdout. */
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

const CHILD = join(import.meta.dirname, "..", "support", "sub-agent-child.ts");
const tempDir = () => mkdtempSync(join(tmpdir(), "tollgate-sub-agents-"));
const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
const outcomeOf = async (run: { done: Promise<string> }) => JSON.parse((await run.done).trim());

// Child processes take seconds each; `npm run mutate` leaves them out.
describe.skipIf(process.env.TOLLGATE_MUTATION === "1")("across processes", () => {
  it("another Node process resumes the parent's JSON state, continuing the sub-run; the call runs once", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const paused = await researchTeam({ log }).run("go", { runId: "team-run" });
    expect(paused.pending).toMatchObject([{ toolCallId: "w1", subRun: { path: ["p1"] } }]);
    writeFileSync(join(dir, "state.json"), JSON.stringify(paused.state));
    const outcome = await outcomeOf(child(["resume-value", join(dir, "state.json"), log]));
    expect(outcome).toMatchObject({ status: "completed", text: "lead: writer: wrote notes.md" });
    expect(outcome.pid).not.toBe(process.pid);
    expect(lines(log)).toEqual(["write notes.md"]);
  });

  it("with a file store: one process resumes by run id, a second finds nothing to resume; the call ran once", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const storeDir = join(dir, "store");
    const store = fileRunStore(storeDir, { leaseMs: 300 });
    const paused = await researchTeam({ log, store }).run("go", { runId: "team-run" });
    expect(paused.status).toBe("needs_approval");
    const first = await outcomeOf(child(["resume-store", storeDir, log]));
    expect(first).toMatchObject({ status: "completed", text: "lead: writer: wrote notes.md" });
    const second = await outcomeOf(child(["resume-store", storeDir, log]));
    expect(second).toMatchObject({ error: "ResumeError" });
    expect(second.message).toMatch(/nothing to resume/);
    // The paused state by value, once the store moved on: refused too.
    const stale = await rejection(
      researchTeam({ log, store }).resume(paused.state, { w1: { approve: true } }),
    );
    expect((stale as Error).message).toMatch(/the store holds another state of run team-run/);
    expect(lines(log)).toEqual(["write notes.md"]);
  });

  it("two concurrent resumes of the paused state on one file store continue the sub-run once", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const storeDir = join(dir, "store");
    await researchTeam({ log, store: fileRunStore(storeDir) }).run("go", { runId: "team-run" });
    const outcomes = await Promise.all([
      outcomeOf(child(["resume-store", storeDir, log])),
      outcomeOf(child(["resume-store", storeDir, log])),
    ]);
    expect(outcomes.filter((o) => o.status === "completed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.error === "ResumeError")).toHaveLength(1);
    expect(lines(log)).toEqual(["write notes.md"]);
  });

  it("a process killed while its sub-agent's tool ran: the recovered parent's call is 'outcome unknown', never run again", async () => {
    const dir = tempDir();
    const log = join(dir, "tools.log");
    const storeDir = join(dir, "store");
    const run = child(["crash", storeDir, log], (out) => out.includes("started"));
    await run.done;
    run.process.kill("SIGKILL");
    await new Promise((resolve) => run.process.once("exit", resolve));
    expect(lines(log)).toEqual(["write notes.md"]);
    const store = fileRunStore(storeDir, { leaseMs: 300 });
    const checkpoint = await store.get("team-run");
    expect(checkpoint?.status).toBe("running");
    expect(checkpoint?.steps[0]?.calls[0]).toMatchObject({ toolCallId: "p1", started: true });
    await new Promise((resolve) => setTimeout(resolve, 350)); // the dead process's lease runs out
    const result = await researchTeam({ log, store }).resume("team-run");
    expect(outputOf(result, "p1")).toMatchObject({
      isError: true,
      output: "outcome unknown: the process stopped while this call ran",
    });
    expect(lines(log)).toEqual(["write notes.md"]);
  });
});

describe("property: nested runs never run a tool without ALLOW", () => {
  type Verdict = "ALLOW" | "DENY" | "NEEDS_APPROVAL";
  type Script = { tool: string; verdict: Verdict }[][];
  const verdict = fc.constantFrom<Verdict>("ALLOW", "DENY", "NEEDS_APPROVAL");
  const script = (tools: string[]) =>
    fc.array(fc.array(fc.record({ tool: fc.constantFrom(...tools), verdict }), { maxLength: 3 }), {
      minLength: 1,
      maxLength: 3,
    });
  const scenarioArb = fc.record({
    parent: script(["p_a", "agent"]),
    child: script(["c_a", "c_b"]),
    approvals: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
    freshLoops: fc.boolean(),
  });

  /**
   * A parent with a plain tool and a sub-agent, each model following its script by step (the
   * number of tool messages so far), every call's verdict given by the policy from the script.
   * Deps carry the run's path, so each execution is known by its full key ("/p0_1/c1_0").
   */
  function team(scenario: { parent: Script; child: Script }, seen: Observed) {
    const plain = (name: string) =>
      tool.withDeps<{ key: string }>()({
        name,
        input: z.object({}),
        execute: (_args, ctx) => {
          seen.executed.push(`${ctx.deps.key}/${ctx.toolCallId}`);
          return `${name} ran`;
        },
      });
    const modelOf = (steps: Script, prefix: string) =>
      functionProvider((request) => {
        const step = request.messages.filter((m) => m.role === "tool").length;
        const calls = steps[step] ?? [];
        if (calls.length === 0) return { text: `${prefix} done` };
        return {
          toolCalls: calls.map((c, i) => ({
            id: `${prefix}${step}_${i}`,
            name: c.tool,
            args: c.tool === "agent" ? { prompt: "go" } : {},
          })),
        };
      });
    const policyOf = (steps: Script) => ({
      decideToolCall: ({ call, deps }: { call: { id: string }; deps: { key: string } }) => {
        const [, step, index] = /^\w(\d+)_(\d+)$/.exec(call.id)!.map(Number);
        const answer = steps[step!]![index!]!.verdict;
        seen.verdicts.set(`${deps.key}/${call.id}`, answer);
        return answer;
      },
    });
    const child = new AgentLoop<{ key: string }>({
      provider: modelOf(scenario.child, "c"),
      tools: [plain("c_a"), plain("c_b")],
      policy: policyOf(scenario.child),
      deps: { key: "?" },
    });
    const agent = child.asTool<{ key: string }>({
      name: "agent",
      description: "a sub-agent",
      deps: (ctx) => {
        const key = `${ctx.deps.key}/${ctx.toolCallId}`;
        seen.agentRuns.push(key); // once when it starts, again each time it is continued
        return { key };
      },
    });
    return new AgentLoop<{ key: string }>({
      provider: modelOf(scenario.parent, "p"),
      tools: [plain("p_a"), agent],
      policy: policyOf(scenario.parent),
      deps: { key: "" },
      allowReplay: true, // a new loop per resume, trusting digests, with no store
      onEvent: (event) => {
        if (event.type === "sub-run" && event.event.type === "run-finish") {
          seen.subResults.push(event.event.result);
        }
      },
    });
  }

  interface Observed {
    executed: string[];
    agentRuns: string[];
    verdicts: Map<string, Verdict>;
    approved: Set<string>;
    subResults: RunResult[];
  }

  it("random scripts for parent and child, random approvals: every execution had an ALLOW (the policy's or a human's), once; every call has one result", async () => {
    let paused = 0;
    let nestedPending = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const seen: Observed = {
          executed: [],
          agentRuns: [],
          verdicts: new Map(),
          approved: new Set(),
          subResults: [],
        };
        let loop = team(scenario, seen);
        let result = await loop.run("go");
        let turn = 0;
        for (let resumes = 0; result.status === "needs_approval"; resumes++) {
          expect(resumes).toBeLessThan(20);
          paused++;
          const decisions: Record<string, { approve: boolean; digest: string }> = {};
          for (const pending of result.pending) {
            const key = [...(pending.subRun?.path ?? []), pending.toolCallId].join("/");
            if (pending.subRun) nestedPending++;
            const approve = scenario.approvals[turn++ % scenario.approvals.length]!;
            if (approve) seen.approved.add(`/${key}`);
            decisions[key] = { approve, digest: pending.digest };
          }
          if (scenario.freshLoops) loop = team(scenario, seen);
          result = await loop.resume(JSON.parse(JSON.stringify(result.state)), decisions);
        }
        for (const key of seen.executed) {
          const allowed = seen.verdicts.get(key) === "ALLOW" || seen.approved.has(key);
          expect(allowed, `${key} executed without an ALLOW`).toBe(true);
        }
        expect(new Set(seen.executed).size, "no tool ran twice").toBe(seen.executed.length);
        for (const key of seen.agentRuns) {
          const allowed = seen.verdicts.get(key) === "ALLOW" || seen.approved.has(key);
          expect(allowed, `sub-agent ${key} ran without an ALLOW`).toBe(true);
        }
        expectTranscriptInvariant(result.messages, false);
        for (const sub of seen.subResults) {
          expectTranscriptInvariant(sub.messages, sub.status === "needs_approval");
        }
      }),
      { numRuns: runs(300) },
    );
    expect(paused, "runs that paused").toBeGreaterThan(scaled(50, 300));
    expect(nestedPending, "pending calls of sub-runs").toBeGreaterThan(scaled(50, 300));
  }, 60_000);
});

describe("a tool that wraps a sub-agent", () => {
  it("passes a copy of its context ({ ...ctx }) and the sub-run still reports to the parent", async () => {
    const child = new AgentLoop({
      provider: functionProvider(() => ({ text: "child says hi", usage: USAGE })),
    });
    const childTool = child.asTool({ name: "child", description: "A child agent" });
    const wrapper = tool({
      name: "wrapper",
      input: z.object({ prompt: z.string() }),
      execute: (args, ctx) => childTool.execute(args, { ...ctx }),
    });
    const events: LoopEvent[] = [];
    const parent = new AgentLoop({
      provider: functionProvider((request) =>
        lastResults(request)
          ? { text: "done", usage: USAGE }
          : { toolCalls: [{ name: "wrapper", args: { prompt: "hi" } }], usage: USAGE },
      ),
      tools: [wrapper],
      onEvent: (event) => events.push(event),
    });
    const result = await parent.run("go");
    expect(result.status).toBe("completed");
    const forwarded = events.filter((event) => event.type === "sub-run");
    expect(forwarded.length).toBeGreaterThan(0);
    expect(
      forwarded.every((event) => event.toolCallId === result.steps[0]!.calls[0]!.toolCallId),
    ).toBe(true);
    // The child's model usage adds up into the parent's: 3 model calls in all.
    expect(result.usage.totalTokens).toBe(3 * USAGE.totalTokens);
  });

  it("a sub-agent that pauses inside the wrapper fails the wrapper's call, saying why, instead of a pause no resume could continue", async () => {
    const { loop: child, written } = writer();
    const childTool = child.asTool({ name: "writer", description: "Writes files" });
    let after = 0;
    const wrapper = tool({
      name: "wrapper",
      input: z.object({ prompt: z.string() }),
      execute: async (args, ctx) => {
        const text = await childTool.execute(args, { ...ctx });
        after++;
        return text;
      },
    });
    const errors: LoopEvent[] = [];
    const loop = parent([wrapper], [{ id: "d1", name: "wrapper", args: { prompt: "a.md" } }], {
      onEvent: (event) => {
        if (event.type === "tool-error") errors.push(event);
      },
    });
    const result = await loop.run("go");
    // Not paused: a resume would have found a wrapper, not the sub-agent's tool, to continue.
    expect(result.status).toBe("completed");
    expect(result.text).toMatch(
      /^wrapper=sub-agent writer paused for approval inside tool wrapper, which is not the sub-agent's own tool: .*its pending calls did not run$/,
    );
    expect(errors).toHaveLength(1);
    expect(after).toBe(0);
    expect(written).toEqual([]);
  });
});
