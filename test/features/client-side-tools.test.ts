import fc from "fast-check";
import {
  AgentLoop,
  type AgentLoopOptions,
  type ApprovalDecisions,
  type ExternalCall,
  jsonSchema,
  type LoopEvent,
  type Message,
  memoryRunStore,
  ResumeError,
  type RunResult,
  type RunState,
  TollgateError,
  tool,
} from "tollgate";
import { functionProvider, scriptedProvider } from "tollgate/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { runs } from "../support/runs.js";

/** A browser-side tool: no execute; its result comes back through resume(). */
const locate = tool({
  name: "get_location",
  description: "The user's position, from the browser",
  input: z.object({ accuracy: z.enum(["coarse", "fine"]).default("coarse") }),
  output: z.object({ lat: z.number(), lon: z.number() }),
});

/** An agent with the client-side tool, a local tool and an approval-gated local tool; runs are logged. */
function agent(
  turns: Parameters<typeof scriptedProvider>[0],
  options: Partial<AgentLoopOptions> = {},
) {
  const ran: string[] = [];
  const weather = tool({
    name: "weather",
    input: z.object({ lat: z.number() }),
    execute: ({ lat }) => {
      ran.push(`weather ${lat}`);
      return "sunny";
    },
  });
  const book = tool({
    name: "book",
    input: z.object({ what: z.string() }),
    needsApproval: true,
    execute: ({ what }) => {
      ran.push(`book ${what}`);
      return "booked";
    },
  });
  const provider = scriptedProvider(turns);
  const events: LoopEvent[] = [];
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [locate, weather, book],
      onEvent: (event) => events.push(event),
      trustState: true,
      ...options,
      ...extra,
    });
  return { loop: make(), make, ran, provider, events };
}

const locateTurn = {
  toolCalls: [
    { id: "w1", name: "weather", args: { lat: 1 } },
    { id: "g1", name: "get_location", args: {} },
  ],
};
const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));
const resultsOf = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));
const here = { lat: 59.9, lon: 10.7 };

describe("tool(): a client-side tool", () => {
  it("is a tool without execute, or one marked external: true; its execute never runs anything", () => {
    expect(locate.external).toBe(true);
    const marked = tool({ name: "ask_user", input: z.object({}), external: true });
    expect(marked.external).toBe(true);
    expect(marked.output).toBeUndefined();
    expect(() => marked.execute({}, {} as never)).toThrow(TollgateError);
    expect(() => marked.execute({}, {} as never)).toThrow(/client-side tool.*resume\(\)/);
    const local = tool({ name: "local", input: z.object({}), execute: () => 1 });
    expect(local.external).toBe(false);
  });

  it("fails closed on a definition that could be either", () => {
    const input = z.object({});
    expect(() => tool({ name: "t", input, external: true, execute: () => 1 })).toThrow(
      /external: true .* has an execute/,
    );
    expect(() => tool({ name: "t", input, external: false })).toThrow(/execute must be a function/);
    expect(() => tool({ name: "t", input, external: "yes" as never })).toThrow(
      /external must be a boolean/,
    );
    expect(() => tool({ name: "t", input, execute: "run" as never })).toThrow(
      /execute must be a function/,
    );
    expect(() => tool({ name: "t", input, output: z.object({}), execute: () => 1 })).toThrow(
      /`output` checks the results of a client-side tool/,
    );
    expect(() => tool({ name: "t", input, output: { type: "object" } as never })).toThrow(
      /`output` must be a zod schema/,
    );
    expect(() => tool({ name: "t", input, outputs: z.object({}) } as never)).toThrow(TypeError);
  });
});

describe("a run pauses with needs_results", () => {
  it("an allowed call to a client-side tool does not run: the run pauses listing it with its validated args", async () => {
    const { loop, ran, events } = agent([locateTurn, { text: "done" }]);
    const paused = await loop.run("weather here?");
    expect(paused.status).toBe("needs_results");
    expect(ran).toEqual(["weather 1"]);
    const external = paused.external!;
    // args in the model's form: the JSON it sent, completed with the schema's default, checked
    expect(external).toEqual([
      {
        toolCallId: "g1",
        toolName: "get_location",
        args: { accuracy: "coarse" },
        digest: expect.any(String),
      },
    ]);
    expect(paused.pending).toBeUndefined();
    expect(paused.state.status).toBe("needs_results");
    expect(paused.state.external).toEqual(external);
    expect(paused.messages.at(-1)?.role).toBe("assistant");
    expect(paused.steps[0]!.calls[1]).toMatchObject({ verdict: "allow", external: true });
    expect(paused.steps[0]!.calls[1]!.result).toBeUndefined();
    const forG1 = events
      .filter((e) => "toolCallId" in e && e.toolCallId === "g1")
      .map((e) => e.type);
    expect(forG1).toEqual(["tool-call", "tool-decision"]);
  });

  it("resume({ [id]: { result } }) gives the model the result; the step's tool message keeps call order", async () => {
    const { loop, make, provider, events, ran } = agent([locateTurn, { text: "sunny at home" }]);
    const paused = await loop.run("weather here?");
    events.length = 0;
    const done = await make().resume(roundTrip(paused.state), { g1: { result: here } });
    expect(done.status).toBe("completed");
    expect(done.text).toBe("sunny at home");
    expect(resultsOf(done.messages)).toEqual([
      { toolCallId: "w1", toolName: "weather", output: "sunny", isError: false },
      { toolCallId: "g1", toolName: "get_location", output: here, isError: false },
    ]);
    expect(provider.requests[1]!.messages.at(-1)).toEqual({
      role: "tool",
      results: resultsOf(done.messages),
    });
    expect(ran).toEqual(["weather 1"]);
    expect(events.filter((e) => e.type === "tool-result").map((e) => e.toolCallId)).toEqual(["g1"]);
    expect(done.steps[0]!.calls[1]!.external).toBeUndefined();
    expect(done.external).toBeUndefined();
  });

  it("resume({ [id]: { error } }) becomes the call's error result", async () => {
    const { loop, make } = agent([locateTurn, { text: "no location" }]);
    const paused = await loop.run("weather here?");
    const done = await make().resume(paused.state, { g1: { error: "the user said no" } });
    expect(resultsOf(done.messages)[1]).toEqual({
      toolCallId: "g1",
      toolName: "get_location",
      output: "the user said no",
      isError: true,
    });
  });

  it("a call the gate does not allow never pauses: invalid args, a hook's block, the policy's deny", async () => {
    const turns = [
      {
        toolCalls: [
          { id: "a", name: "get_location", args: { accuracy: "exact" } },
          { id: "b", name: "get_location", args: { accuracy: "fine" } },
        ],
      },
      { toolCalls: [{ id: "c", name: "get_location", args: {} }] },
      { text: "gave up" },
    ];
    const { loop } = agent(turns, {
      maxRetries: 5,
      preToolCall: [({ toolCallId }) => (toolCallId === "b" ? { block: "not now" } : undefined)],
      policy: {
        decideToolCall: ({ call }) =>
          call.id === "c" ? { decision: "DENY", reason: "no" } : undefined,
      },
    });
    const result = await loop.run("where am I?");
    expect(result.status).toBe("completed");
    expect(result.steps.flatMap((s) => s.calls.map((c) => c.verdict))).toEqual([
      "invalid",
      "block",
      "deny",
    ]);
  });

  it("a client-side call counts against the toolCalls limit when it is allowed", async () => {
    const { loop } = agent(
      [
        {
          toolCalls: [
            { id: "g1", name: "get_location", args: {} },
            { id: "g2", name: "get_location", args: {} },
          ],
        },
      ],
      { limits: { toolCalls: 1 } },
    );
    const result = await loop.run("twice");
    expect(result.status).toBe("limit_reached");
    expect(result.steps[0]!.calls.map((c) => c.result?.output)).toEqual([
      "not run: limit reached (toolCalls 1)",
      "not run: limit reached (toolCalls 1)",
    ]);
  });
});

describe("a supplied result passes the post-call chain, as an executed call's output does", () => {
  it("a hook's { output } is what the model reads; its { block } withholds it; it sees the call and the result", async () => {
    const seen: unknown[] = [];
    const { loop, make } = agent([locateTurn, { text: "ok" }], {
      postToolCall: [
        ({ name, output, isError }) => {
          seen.push({ name, output, isError });
          if (name === "get_location") return { output: { lat: 60, lon: 11 } }; // coarsened
          return undefined;
        },
      ],
    });
    const paused = await loop.run("go");
    seen.length = 0;
    const events: LoopEvent[] = [];
    const done = await make({ onEvent: (e) => events.push(e) }).resume(paused.state, {
      g1: { result: here },
    });
    expect(seen).toEqual([{ name: "get_location", output: here, isError: false }]);
    expect(resultsOf(done.messages)[1]!.output).toEqual({ lat: 60, lon: 11 });
    expect(events.map((e) => e.type)).toContain("tool-post-decision");

    const blocking = agent([locateTurn, { text: "ok" }], {
      postToolCall: [() => ({ block: "location withheld" })],
    });
    const again = await blocking.loop.run("go");
    const blocked = await blocking.make().resume(again.state, { g1: { result: here } });
    expect(resultsOf(blocked.messages)[1]).toMatchObject({
      output: "location withheld",
      isError: true,
    });
  });

  it("a hook's { stop } ends the run after the step: an approved call of the step does not start", async () => {
    const both = {
      toolCalls: [
        { id: "g1", name: "get_location", args: {} },
        { id: "b1", name: "book", args: { what: "table" } },
      ],
    };
    const { loop, make, ran } = agent([both, { text: "never" }], {
      postToolCall: [({ name }) => (name === "get_location" ? { stop: true } : undefined)],
    });
    const paused = await loop.run("go");
    const done = await make().resume(paused.state, { b1: { approve: true }, g1: { result: here } });
    expect(done.status).toBe("stopped");
    expect(ran).toEqual([]);
    expect(resultsOf(done.messages).map((r) => r.isError)).toEqual([true, true]);
  });
});

describe("results are checked before anything runs", () => {
  async function pausedRun() {
    const a = agent([locateTurn, { text: "ok" }]);
    const paused = await a.loop.run("go");
    return { ...a, paused };
  }
  const refused = async (decisions: unknown, message: RegExp) => {
    const { make, paused } = await pausedRun();
    const loop = make();
    const error = await loop.resume(paused.state, decisions as ApprovalDecisions).catch((e) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error.message).toMatch(message);
    // the state is not used up: the right result still resumes it
    expect((await loop.resume(paused.state, { g1: { result: here } })).status).toBe("completed");
  };

  it("a result that does not fit the output schema", () =>
    refused({ g1: { result: { lat: "north" } } }, /does not fit the tool's output schema: lat/));
  it("a result JSON cannot carry", () =>
    refused(
      { g1: { result: { lat: 1, lon: 2, seen: new Map() } } },
      /cannot be stored as JSON.*Map/,
    ));
  it("no entry for a client-side call", () =>
    refused({}, /g1 \(get_location\) runs client-side and waits for its result/));
  it("an approval instead of a result", () =>
    refused(
      { g1: { approve: true } },
      /waits for its result; give \{ result \} or \{ error.*not a decision/,
    ));
  it("an entry for an unknown id", () =>
    refused({ g1: { result: here }, zz: { result: 1 } }, /no pending call has the id "zz"/));
  it("a result mixed with a decision", () =>
    refused({ g1: { result: here, approve: true } }, /mixes a client-side result with a decision/));
  it("both result and error", () =>
    refused({ g1: { result: here, error: "x" } }, /both `result` and `error`/));
  it("an error that is not a string", () =>
    refused({ g1: { error: 404 } }, /`error` must be a non-empty string/));
  it("an empty error", () => refused({ g1: { error: "" } }, /`error` must be a non-empty string/));
  it("a result left undefined (not a successful null)", () =>
    refused({ g1: { result: undefined } }, /has `result: undefined`; give the tool's result/));
  it("an unknown key", () => refused({ g1: { error: "x", rezult: 1 } }, /unknown key `rezult`/));
  it("a malformed digest", () => refused({ g1: { result: here, digest: "abc" } }, /64-hex digest/));

  it("a loop whose tool runs here refuses a result meant for a client-side tool", async () => {
    const { paused } = await pausedRun();
    const local = tool({ name: "get_location", input: z.object({}), execute: () => here });
    const loop = new AgentLoop({
      provider: scriptedProvider([]),
      tools: [local],
      trustState: true,
    });
    await expect(loop.resume(paused.state, { g1: { result: here } })).rejects.toThrow(
      /runs here \(it has an execute\)/,
    );
  });

  it("a raw JSON Schema output schema is enforced too", async () => {
    const ask = tool({
      name: "ask",
      input: z.object({ question: z.string() }),
      output: jsonSchema<string>({ type: "string", minLength: 1 }),
    });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ id: "q", name: "ask", args: { question: "?" } }] },
        { text: "thanks" },
      ]),
      tools: [ask],
      trustState: true,
    });
    const paused = await loop.run("ask");
    await expect(loop.resume(paused.state, { q: { result: "" } })).rejects.toThrow(/output schema/);
    expect((await loop.resume(paused.state, { q: { result: "yes" } })).text).toBe("thanks");
  });
});

describe("approvals and results in the same step", () => {
  const both = {
    toolCalls: [
      { id: "b1", name: "book", args: { what: "table" } },
      { id: "g1", name: "get_location", args: {} },
    ],
  };

  it("the run is needs_approval and lists the client-side calls too; one resume takes both kinds of entry", async () => {
    const { loop, make, ran } = agent([both, { text: "booked near you" }]);
    const paused = await loop.run("book near me");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending!.map((p) => p.toolCallId)).toEqual(["b1"]);
    expect(paused.external!.map((c) => c.toolCallId)).toEqual(["g1"]);
    await expect(make().resume(paused.state, { b1: { approve: true } })).rejects.toThrow(/g1/);
    await expect(make().resume(paused.state, { g1: { result: here } })).rejects.toThrow(/b1/);
    await expect(
      make().resume(paused.state, { b1: { result: "booked" }, g1: { result: here } }),
    ).rejects.toThrow(/waits for approval, not for a result/);
    expect(ran).toEqual([]);
    const done = await make().resume(roundTrip(paused.state), {
      b1: { approve: true },
      g1: { result: here },
    });
    expect(done.status).toBe("completed");
    expect(ran).toEqual(["book table"]);
    expect(resultsOf(done.messages).map((r) => r.output)).toEqual(["booked", here]);
  });

  it("a client-side tool that needs approval asks first; approved, it then waits for its result; refused, it never does", async () => {
    const askFirst = tool({ name: "scan", input: z.object({}), needsApproval: true });
    const turns = [{ toolCalls: [{ id: "s1", name: "scan", args: {} }] }, { text: "scanned" }];
    const loop = new AgentLoop({
      provider: scriptedProvider(turns),
      tools: [askFirst],
      trustState: true,
    });
    const asking = await loop.run("scan");
    expect(asking.status).toBe("needs_approval");
    expect(asking.external).toBeUndefined();
    const waiting = await loop.resume(asking.state, { s1: { approve: true } });
    expect(waiting.status).toBe("needs_results");
    expect(waiting.external!.map((c) => c.toolCallId)).toEqual(["s1"]);
    expect(waiting.steps).toHaveLength(1);
    const done = await loop.resume(roundTrip(waiting.state), { s1: { result: "3 pages" } });
    expect(done.text).toBe("scanned");
    expect(resultsOf(done.messages)).toEqual([
      { toolCallId: "s1", toolName: "scan", output: "3 pages", isError: false },
    ]);

    const refusing = new AgentLoop({
      provider: scriptedProvider(turns),
      tools: [askFirst],
      trustState: true,
    });
    const again = await refusing.run("scan");
    const denied = await refusing.resume(again.state, { s1: { approve: false } });
    expect(denied.status).toBe("completed");
    expect(resultsOf(denied.messages)[0]!.isError).toBe(true);
  });
});

describe("across processes: trust, digests, signatures, stores", () => {
  it("a state by value (no trustState) resumes when every result entry carries its call's digest", async () => {
    const { loop, make } = agent([locateTurn, { text: "ok" }], {
      trustState: false,
      allowReplay: true,
    });
    const paused = await loop.run("go");
    const digest = paused.external![0]!.digest;
    await expect(make().resume(roundTrip(paused.state), { g1: { result: here } })).rejects.toThrow(
      /carry no digest/,
    );
    const tampered = roundTrip(paused.state);
    const call = tampered.steps[0]!.calls[1]!;
    call.args = { accuracy: "fine" };
    tampered.external![0]!.args = call.args; // the list is derived from the steps: kept in step
    await expect(make().resume(tampered, { g1: { result: here, digest } })).rejects.toThrow(
      /digest mismatch/,
    );
    const done = await make().resume(roundTrip(paused.state), { g1: { result: here, digest } });
    expect(done.status).toBe("completed");
  });

  it("a signed state resumes on a loop with the key; changed, it is refused", async () => {
    const { loop, make } = agent([locateTurn, { text: "ok" }], {
      trustState: false,
      signingKey: "k",
      allowReplay: true,
    });
    const paused = await loop.run("go");
    const changed = roundTrip(paused.state);
    changed.external![0]!.toolName = "weather";
    await expect(make().resume(changed, { g1: { result: here } })).rejects.toThrow(/signature/);
    expect((await make().resume(roundTrip(paused.state), { g1: { result: here } })).status).toBe(
      "completed",
    );
  });

  it("with a store, a new loop resumes by runId, once", async () => {
    const store = memoryRunStore();
    const { loop, make, ran } = agent([locateTurn, { text: "ok" }], { store, trustState: false });
    const paused = await loop.run("go", { runId: "geo-1" });
    expect((await store.get("geo-1"))?.status).toBe("needs_results");
    await expect(make().run("again", { runId: "geo-1" })).rejects.toThrow(
      /client-side tools' results/,
    );
    const done = await make().resume("geo-1", { g1: { result: here } });
    expect(done.status).toBe("completed");
    await expect(make().resume("geo-1", { g1: { result: here } })).rejects.toThrow(ResumeError);
    await expect(make().resume(paused.state, { g1: { result: here } })).rejects.toThrow(
      ResumeError,
    );
    expect(ran).toEqual(["weather 1"]);
  });

  it("the same state never settles twice on one loop", async () => {
    const { loop } = agent([locateTurn, { text: "ok" }, { text: "again" }]);
    const paused = await loop.run("go");
    await loop.resume(paused.state, { g1: { result: here } });
    await expect(loop.resume(paused.state, { g1: { result: here } })).rejects.toThrow(ResumeError);
  });

  it("a damaged state: status needs_results with no client-side call waiting", async () => {
    const { loop } = agent([locateTurn]);
    const paused = await loop.run("go");
    const damaged = roundTrip(paused.state);
    delete damaged.steps[0]!.calls[1]!.external;
    delete damaged.external;
    await expect(loop.resume(damaged, {})).rejects.toThrow(/damaged/);
  });
});

describe("sub-agents", () => {
  it("a sub-agent cannot wait on a client-side tool yet: its call fails, closed", async () => {
    const inner = new AgentLoop({
      provider: scriptedProvider([{ toolCalls: [{ id: "g1", name: "get_location", args: {} }] }]),
      tools: [locate],
    });
    const outer = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ id: "d1", name: "helper", args: { prompt: "where?" } }] },
        { text: "could not" },
      ]),
      tools: [inner.asTool({ name: "helper", description: "helps" })],
    });
    const result = await outer.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({
      isError: true,
      output: expect.stringMatching(/ended with status "needs_results"/),
    });
  });
});

describe("property: random scripts, verdicts, decisions and results (JSON round trips, new loops)", () => {
  const callArb = fc.record({
    name: fc.constantFrom("local", "client", "client_ask", "local_ask"),
    valid: fc.boolean(),
    policy: fc.constantFrom("ALLOW", "DENY", "NEEDS_APPROVAL", "default"),
  });
  const scenarioArb = fc.record({
    steps: fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
    answers: fc.array(fc.constantFrom("approve", "deny", "result", "error"), {
      minLength: 16,
      maxLength: 16,
    }),
    trust: fc.constantFrom("trustState", "digests", "signingKey", "store"),
  });

  it("no call runs without ALLOW or a human's approval, none runs twice, no client result without ALLOW, every call one result", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ steps, answers, trust }) => {
        const executed: string[] = [];
        const plan = new Map<string, (typeof steps)[number][number]>();
        const supplied = new Map<string, unknown>();
        const input = z.object({ n: z.number() });
        const local = (name: string, needsApproval: boolean) =>
          tool({
            name,
            input,
            needsApproval,
            maxRetries: 20,
            execute: ({ n }, ctx) => {
              executed.push(ctx.toolCallId);
              return n;
            },
          });
        const tools = [
          local("local", false),
          local("local_ask", true),
          tool({ name: "client", input, maxRetries: 20, output: z.number() }),
          tool({ name: "client_ask", input, maxRetries: 20, needsApproval: true }),
        ];
        const provider = scriptedFree(steps, plan);
        const store = trust === "store" ? memoryRunStore() : undefined;
        const makeLoop = () =>
          new AgentLoop({
            provider,
            tools,
            maxSteps: 6,
            maxRetries: 20,
            ...(store ? { store } : {}),
            ...(trust === "trustState" ? { trustState: true } : {}),
            ...(trust === "signingKey" ? { signingKey: "k" } : {}),
            // A new loop per resume, by value, with no store: replays are this test's to refuse.
            ...(trust === "signingKey" || trust === "digests" ? { allowReplay: true } : {}),
            policy: {
              decideToolCall: ({ call }) => {
                const policy = plan.get(call.id)?.policy;
                return policy === "default" ? undefined : policy;
              },
            },
          });
        let result: RunResult = await makeLoop().run("go", store ? { runId: "r" } : {});
        let next = 0;
        const listed = new Set<string>();
        for (let round = 0; round < 12; round++) {
          if (result.status !== "needs_approval" && result.status !== "needs_results") break;
          const entries: ApprovalDecisions = {};
          for (const pending of result.pending ?? []) {
            const digest = trust === "digests" ? { digest: pending.digest } : {};
            entries[pending.toolCallId] =
              answers[next++ % answers.length] === "deny"
                ? { approve: false, ...digest }
                : { approve: true, ...digest };
          }
          for (const call of result.external ?? []) {
            // listed once, and only once the gate (or a human) allowed it
            expect(listed.has(call.toolCallId)).toBe(false);
            listed.add(call.toolCallId);
            const record = result.steps.at(-1)!.calls.find((c) => c.toolCallId === call.toolCallId);
            expect(record).toMatchObject({ verdict: "allow", external: true });
            const digest = trust === "digests" ? { digest: call.digest } : {};
            const value = next;
            entries[call.toolCallId] =
              answers[next++ % answers.length] === "error"
                ? { error: `no ${value}`, ...digest }
                : { result: value, ...digest };
            supplied.set(call.toolCallId, value);
          }
          const state: RunState = JSON.parse(JSON.stringify(result.state));
          const resumer = makeLoop();
          result = store
            ? await resumer.resume("r", entries)
            : await resumer.resume(state, entries);
          // settled once: the same state again (on this loop; with a store, on any) is refused
          const again = store ? makeLoop() : resumer;
          await expect(again.resume(state, entries)).rejects.toThrow(ResumeError);
        }
        expect(new Set(executed).size).toBe(executed.length);
        const records = result.steps.flatMap((step) => step.calls);
        for (const id of executed) {
          const record = records.find((c) => c.toolCallId === id)!;
          expect(record.verdict).toBe("allow");
          expect(record.by === "approval" || plan.get(id)!.policy !== "DENY").toBe(true);
          expect(record.toolName).toMatch(/^local/);
        }
        for (const record of records) {
          if (!record.toolName.startsWith("client") || !record.result) continue;
          expect(JSON.stringify(record.result.output)).not.toMatch(/is a client-side tool/);
          const output = record.result.output;
          if (supplied.has(record.toolCallId)) {
            const value = supplied.get(record.toolCallId);
            expect([value, `no ${value}`]).toContain(output);
          } else {
            // never supplied: the gate refused it, or the run ended first; never "run"
            expect(record.verdict === "allow" && !record.result.isError).toBe(false);
          }
        }
        const paused = result.status === "needs_approval" || result.status === "needs_results";
        result.messages.forEach((message, index) => {
          if (message.role !== "assistant") return;
          const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
          if (ids.length === 0 || (paused && index === result.messages.length - 1)) return;
          const after = result.messages[index + 1];
          expect(after?.role === "tool" && after.results.map((r) => r.toolCallId)).toEqual(ids);
        });
      }),
      { numRuns: runs(120) },
    );
  });
});

/** A model that asks, at each step, for the planned calls (ids `s<step>c<i>`), then answers. */
function scriptedFree(
  steps: { name: string; valid: boolean }[][],
  plan: Map<string, { name: string; valid: boolean; policy: string }>,
) {
  return functionProvider((request) => {
    const step = request.messages.filter((m) => m.role === "assistant").length;
    const calls = steps[step];
    if (!calls) return { text: "end" };
    return {
      toolCalls: calls.map((call, i) => {
        const id = `s${step}c${i}`;
        plan.set(id, call as never);
        return { id, name: call.name, args: call.valid ? { n: i } : { n: "x" } };
      }),
    };
  });
}

describe("types", () => {
  it("needs_results narrows to a result with external calls", async () => {
    const { loop } = agent([locateTurn]);
    const result: RunResult = await loop.run("go");
    if (result.status === "needs_results") {
      expectTypeOf(result.external).toEqualTypeOf<ExternalCall[]>();
      expectTypeOf(result.pending).toEqualTypeOf<undefined>();
    }
    expectTypeOf<{
      g1: { result: { lat: 1 } };
      g2: { error: "no" };
    }>().toMatchTypeOf<ApprovalDecisions>();
  });
});
