import {
  AgentLoop,
  type AgentLoopOptions,
  handoff,
  hasToolCall,
  type LoopEvent,
  type Message,
  type ModelRequest,
  PolicyError,
  ResumeError,
  type RunState,
  removeToolCalls,
  type ToolContext,
  type ToolResult,
  tool,
} from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Handoffs (issue 30 §1): an agent hands the run to another, which continues with the
 * transcript and its own provider, tools, instructions and gate. The handoff is a real tool of
 * the source (`transfer_to_<name>`, args `{}`) and passes the source's whole gate; it takes
 * effect when its step closes. The oracle for what each agent was told is its own scripted
 * provider's recorded requests; for what ran, the tools' own logs.
 */

const call = (id: string, name: string, args: unknown = {}) => ({ id, name, args });
const turn = (...calls: ReturnType<typeof call>[]): ScriptedTurn => ({ toolCalls: calls });
const toBilling = (id = "h1") => call(id, "transfer_to_billing");
const toSupport = (id = "h2") => call(id, "transfer_to_support");

const toolNames = (request: ModelRequest | undefined) =>
  (request?.tools ?? []).map((spec) => spec.name).sort();
const resultsOf = (messages: readonly Message[]): ToolResult[] =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));
const resultOf = (messages: readonly Message[], id: string) =>
  resultsOf(messages).find((result) => result.toolCallId === id);
const handoffsOf = (events: readonly LoopEvent[]) =>
  events.filter((event) => event.type === "handoff");
const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));
const hasToolParts = (messages: readonly Message[]) =>
  messages.some(
    (message) =>
      message.role === "tool" ||
      (message.role === "assistant" && message.parts.some((part) => part.type === "tool-call")),
  );

/**
 * Triage, billing and support: triage hands off to both; every tool run is logged in `ran`.
 * `make()` builds a fresh set of loops over the same providers and tools, as another process
 * would (the scripts are one queue per agent, consumed across runs and resumes).
 */
function team(
  turns: { triage?: ScriptedTurn[]; billing?: ScriptedTurn[]; support?: ScriptedTurn[] } = {},
  options: {
    triage?: Partial<AgentLoopOptions>;
    billing?: Partial<AgentLoopOptions>;
    support?: Partial<AgentLoopOptions>;
  } = {},
) {
  const ran: string[] = [];
  const lookup = tool({
    name: "lookup",
    input: z.object({ q: z.string() }),
    execute: ({ q }) => {
      ran.push(`lookup ${q}`);
      return `found ${q}`;
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
  const refund = tool({
    name: "refund",
    input: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      ran.push(`refund ${amount}`);
      return `refunded ${amount}`;
    },
  });
  const reset = tool({
    name: "reset_password",
    input: z.object({}),
    execute: () => {
      ran.push("reset_password");
      return "reset";
    },
  });
  const providers = {
    triage: scriptedProvider(turns.triage ?? []),
    billing: scriptedProvider(turns.billing ?? []),
    support: scriptedProvider(turns.support ?? []),
  };
  const events: LoopEvent[] = [];
  const make = () => {
    const billing = new AgentLoop({
      name: "billing",
      provider: providers.billing,
      instructions: "You are billing.",
      tools: [refund],
      trustState: true,
      ...options.billing,
    });
    const support = new AgentLoop({
      name: "support",
      provider: providers.support,
      instructions: "You are support.",
      tools: [reset],
      trustState: true,
      ...options.support,
    });
    const triage = new AgentLoop({
      name: "triage",
      provider: providers.triage,
      instructions: "You are triage.",
      tools: [lookup, send],
      handoffs: [billing, support],
      onEvent: (event) => events.push(event),
      trustState: true,
      ...options.triage,
    });
    return { triage, billing, support };
  };
  return { ...make(), make, ran, providers, events, tools: { lookup, send, refund, reset } };
}

describe("the handoff tool", () => {
  it("each target is offered to the source's model as transfer_to_<name>, with args {}; its output is { agent }", async () => {
    const t = team({ triage: [turn(toBilling())], billing: [{ text: "refund on its way" }] });
    const result = await t.triage.run("I want a refund");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("refund on its way");
    expect(toolNames(t.providers.triage.requests[0])).toEqual([
      "lookup",
      "send",
      "transfer_to_billing",
      "transfer_to_support",
    ]);
    const spec = t.providers.triage.requests[0]!.tools.find(
      (s) => s.name === "transfer_to_billing",
    );
    expect(Object.keys((spec!.inputSchema as { properties?: object }).properties ?? {})).toEqual(
      [],
    );
    expect(resultOf(result.messages, "h1")).toEqual({
      toolCallId: "h1",
      toolName: "transfer_to_billing",
      output: { agent: "billing" },
      isError: false,
    });
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "allow",
      toolName: "transfer_to_billing",
    });
    expect(t.ran).toEqual([]);
  });

  it("extra keys in a handoff call's args are refused by its schema, and nothing is handed over", async () => {
    const t = team({
      triage: [turn(call("h1", "transfer_to_billing", { reason: "refund" })), { text: "sorry" }],
    });
    const result = await t.triage.run("I want a refund");
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "invalid" });
    expect(resultOf(result.messages, "h1")).toMatchObject({ isError: true });
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
    expect(handoffsOf(t.events)).toEqual([]);
  });

  it("handoff(): `description` goes into the tool's description, `toolName` replaces transfer_to_<name>", async () => {
    const supportProvider = scriptedProvider([{ text: "password reset" }]);
    const support = new AgentLoop({ name: "support", provider: supportProvider });
    const triageProvider = scriptedProvider([turn(call("e1", "escalate"))]);
    const events: LoopEvent[] = [];
    const triage = new AgentLoop({
      name: "triage",
      provider: triageProvider,
      handoffs: [
        handoff(() => support, {
          name: "support",
          description: "Technical problems",
          toolName: "escalate",
        }),
      ],
      onEvent: (event) => events.push(event),
    });
    const result = await triage.run("I cannot log in");
    const spec = triageProvider.requests[0]!.tools.find((s) => s.name === "escalate");
    expect(spec?.description).toContain("Technical problems");
    expect(toolNames(triageProvider.requests[0])).toEqual(["escalate"]);
    expect(result.text).toBe("password reset");
    expect(supportProvider.requests).toHaveLength(1);
    expect(handoffsOf(events)).toEqual([
      {
        type: "handoff",
        runId: result.state.runId,
        step: 0,
        toolCallId: "e1",
        toolName: "escalate",
        from: "triage",
        to: "support",
      },
    ]);
  });

  it("prepareStep may hide a handoff like any tool: a call to it is not available and hands nothing", async () => {
    const t = team(
      { triage: [turn(toBilling()), { text: "staying" }] },
      {
        triage: {
          policy: {
            prepareStep: ({ tools }) =>
              tools.names().filter((name) => name !== "transfer_to_billing"),
          },
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(toolNames(t.providers.triage.requests[0])).not.toContain("transfer_to_billing");
    expect(toolNames(t.providers.triage.requests[0])).toContain("transfer_to_support");
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "unavailable" });
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
  });
});

describe("the next step is the target's", () => {
  it("runs on the target's provider, instructions and tools (its own handoffs too), with the transcript carried over", async () => {
    const billingProvider = scriptedProvider([
      turn(call("r1", "refund", { amount: 5 })),
      { text: "done" },
    ]);
    const triageProvider = scriptedProvider([turn(call("h1", "transfer_to_billing"))]);
    const ran: string[] = [];
    const refund = tool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      execute: ({ amount }) => {
        ran.push(`refund ${amount}`);
        return "ok";
      },
    });
    const lookup = tool({ name: "lookup", input: z.object({}), execute: () => "x" });
    let triage: AgentLoop | undefined;
    const billing = new AgentLoop({
      name: "billing",
      provider: billingProvider,
      instructions: "You are billing.",
      tools: [refund],
      handoffs: [handoff(() => triage!, { name: "triage" })],
    });
    triage = new AgentLoop({
      name: "triage",
      provider: triageProvider,
      instructions: "You are triage.",
      tools: [lookup],
      handoffs: [billing],
    });
    const result = await triage.run("I want a refund");
    expect(result.status).toBe("completed");
    expect(triageProvider.requests).toHaveLength(1);
    expect(billingProvider.requests).toHaveLength(2);
    const first = billingProvider.requests[0]!;
    expect(first.system).toBe("You are billing.");
    expect(toolNames(first)).toEqual(["refund", "transfer_to_triage"]);
    // The whole transcript is handed over: the prompt, the handoff call and its result.
    expect(first.messages[0]).toEqual({ role: "user", content: "I want a refund" });
    expect(resultOf(first.messages, "h1")).toMatchObject({ output: { agent: "billing" } });
    expect(ran).toEqual(["refund 5"]);
  });

  it("result.agent, state.agent and steps[i].agent say which agent held the run", async () => {
    const t = team({
      triage: [turn(call("l1", "lookup", { q: "order" })), turn(toBilling())],
      billing: [turn(call("r1", "refund", { amount: 5 })), { text: "refunded" }],
    });
    const result = await t.triage.run("I want a refund");
    expect(result.steps.map((step) => step.agent)).toEqual([
      "triage",
      "triage",
      "billing",
      "billing",
    ]);
    expect(result.state.steps.map((step) => step.agent)).toEqual([
      "triage",
      "triage",
      "billing",
      "billing",
    ]);
    expect(result.agent).toBe("billing");
    expect(result.state.agent).toBe("billing");
    expect(t.ran).toEqual(["lookup order", "refund 5"]);
  });

  it("a run on a loop without a name has no agent in its result, steps or state", async () => {
    const loop = new AgentLoop({ provider: scriptedProvider([{ text: "hi" }]) });
    const result = await loop.run("hello");
    expect(result.agent).toBeUndefined();
    expect("agent" in result.state).toBe(false);
    expect(result.steps[0]!.agent).toBeUndefined();
  });

  it("a handoff event { type, runId, step, toolCallId, from, to }, after the handoff's result and before the target's step", async () => {
    const t = team({
      triage: [turn(call("l1", "lookup", { q: "a" }), toBilling())],
      billing: [{ text: "ok" }],
    });
    const result = await t.triage.run("I want a refund");
    expect(handoffsOf(t.events)).toEqual([
      {
        type: "handoff",
        runId: result.state.runId,
        step: 0,
        toolCallId: "h1",
        toolName: "transfer_to_billing",
        from: "triage",
        to: "billing",
      },
    ]);
    const at = t.events.findIndex((event) => event.type === "handoff");
    const handoffResult = t.events.findIndex(
      (event) => event.type === "tool-result" && event.toolCallId === "h1",
    );
    const nextStep = t.events.findIndex((event) => event.type === "step-start" && event.step === 1);
    expect(handoffResult).toBeGreaterThanOrEqual(0);
    expect(handoffResult).toBeLessThan(at);
    expect(at).toBeLessThan(nextStep);
  });

  it("stream() yields the handoff event too", async () => {
    const t = team({ triage: [turn(toBilling())], billing: [{ text: "ok" }] });
    const seen: LoopEvent[] = [];
    for await (const event of t.triage.stream("I want a refund")) seen.push(event);
    expect(handoffsOf(seen)).toMatchObject([{ from: "triage", to: "billing", toolCallId: "h1" }]);
    expect(seen.at(-1)).toMatchObject({ type: "run-finish", result: { agent: "billing" } });
  });

  it("the target's hooks and policy judge its calls, not the source's", async () => {
    const seen: string[] = [];
    const t = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "cannot refund" }],
      },
      {
        triage: {
          preToolCall: [(c) => void seen.push(`triage hook ${c.name}`)],
          policy: {
            decideToolCall: ({ call: c }) => {
              seen.push(`triage policy ${c.name}`);
              return "ALLOW";
            },
          },
        },
        billing: {
          preToolCall: [(c) => void seen.push(`billing hook ${c.name}`)],
          policy: {
            decideToolCall: ({ call: c }) => {
              seen.push(`billing policy ${c.name}`);
              return { decision: "DENY", reason: "refunds are frozen" };
            },
          },
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(seen).toEqual([
      "triage hook transfer_to_billing",
      "triage policy transfer_to_billing",
      "billing hook refund",
      "billing policy refund",
    ]);
    expect(t.ran).toEqual([]);
    expect(resultOf(result.messages, "r1")).toMatchObject({ isError: true });
    expect(String(resultOf(result.messages, "r1")!.output)).toContain("refunds are frozen");
    expect(result.agent).toBe("billing");
  });
});

describe("what goes with the agent", () => {
  it("settings, formatToolError and endsRun are the target's; a run's own settings are for the agent it starts with", async () => {
    const t = team(
      {
        triage: [turn(call("x1", "nope"), toBilling())],
        billing: [turn(call("x2", "gone")), turn(call("r1", "refund", { amount: 5 }))],
      },
      {
        triage: {
          settings: { temperature: 0.9 },
          formatToolError: ({ toolName }) => `triage cannot call ${toolName}`,
        },
        billing: {
          settings: { temperature: 0.1 },
          formatToolError: ({ toolName }) => `billing cannot call ${toolName}`,
          policy: { endsRun: ({ call: c }) => c.name === "refund" },
        },
      },
    );
    const result = await t.triage.run("I want a refund", { settings: { maxOutputTokens: 50 } });
    expect(t.providers.triage.requests[0]!.settings).toEqual({
      temperature: 0.9,
      maxOutputTokens: 50,
    });
    expect(t.providers.billing.requests.map((r) => r.settings)).toEqual([
      { temperature: 0.1 },
      { temperature: 0.1 },
    ]);
    expect(resultOf(result.messages, "x1")!.output).toBe("triage cannot call nope");
    expect(resultOf(result.messages, "x2")!.output).toBe("billing cannot call gone");
    expect(result.status).toBe("ended_by_tool");
    expect(result.endedBy).toMatchObject({ id: "r1", name: "refund" });
    expect(result.agent).toBe("billing");
  });
});

describe("the source's gate judges the handoff", () => {
  it("a pre-call hook's block keeps the run on the source: the model gets the block, the target is never called", async () => {
    const t = team(
      { triage: [turn(toBilling()), { text: "staying with triage" }] },
      {
        triage: {
          preToolCall: [
            (c) =>
              c.name === "transfer_to_billing" ? { block: "transfers need a ticket" } : undefined,
          ],
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(result.text).toBe("staying with triage");
    expect(resultOf(result.messages, "h1")).toEqual({
      toolCallId: "h1",
      toolName: "transfer_to_billing",
      output: "transfers need a ticket",
      isError: true,
    });
    expect(resultOf(t.providers.triage.requests[1]!.messages, "h1")).toMatchObject({
      output: "transfers need a ticket",
    });
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "block", by: "hook:0" });
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
    expect(result.steps.map((step) => step.agent)).toEqual(["triage", "triage"]);
    expect(handoffsOf(t.events)).toEqual([]);
  });

  it("a policy DENY keeps the run on the source; decideToolCall sees the handoff as a call with args {}", async () => {
    const asked: unknown[] = [];
    const t = team(
      { triage: [turn(toBilling()), { text: "staying" }] },
      {
        triage: {
          policy: {
            decideToolCall: ({ call: c }) => {
              asked.push({ name: c.name, args: c.args });
              return { decision: "DENY", reason: "not during the audit" };
            },
          },
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(asked).toEqual([{ name: "transfer_to_billing", args: {} }]);
    expect(resultOf(result.messages, "h1")).toMatchObject({ isError: true });
    expect(String(resultOf(result.messages, "h1")!.output)).toContain("not during the audit");
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "deny", by: "policy" });
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
    expect(handoffsOf(t.events)).toEqual([]);
  });

  it("a post-call hook's block hands nothing", async () => {
    const t = team(
      { triage: [turn(toBilling()), { text: "staying" }] },
      {
        triage: {
          postToolCall: [
            (c) => (c.name === "transfer_to_billing" ? { block: "not now" } : undefined),
          ],
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(resultOf(result.messages, "h1")).toMatchObject({ isError: true, output: "not now" });
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
    expect(handoffsOf(t.events)).toEqual([]);
  });

  it("NEEDS_APPROVAL pauses on the source; approved on resume (fresh loops, JSON state), the next step is the target's", async () => {
    const t = team(
      { triage: [turn(toBilling())], billing: [{ text: "billing here" }] },
      {
        triage: {
          policy: {
            decideToolCall: ({ call: c }) =>
              c.name === "transfer_to_billing" ? "NEEDS_APPROVAL" : "ALLOW",
          },
        },
      },
    );
    const paused = await t.triage.run("I want a refund");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toMatchObject([
      { toolCallId: "h1", toolName: "transfer_to_billing", args: {} },
    ]);
    expect(paused.agent).toBe("triage");
    expect(paused.state.agent).toBe("triage");
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(handoffsOf(t.events)).toEqual([]);

    const resumed = await t
      .make()
      .triage.resume(roundTrip(paused.state), { h1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(resumed.text).toBe("billing here");
    expect(t.providers.billing.requests).toHaveLength(1);
    expect(t.providers.triage.requests).toHaveLength(1);
    expect(resumed.steps.map((step) => step.agent)).toEqual(["triage", "billing"]);
    expect(resumed.steps[0]!.calls[0]).toMatchObject({ verdict: "allow", by: "approval" });
    expect(resumed.agent).toBe("billing");
    expect(handoffsOf(t.events)).toMatchObject([
      { from: "triage", to: "billing", toolCallId: "h1", step: 0 },
    ]);
  });

  it("NEEDS_APPROVAL denied on resume: the run stays on the source, whose model gets the refusal", async () => {
    const t = team(
      { triage: [turn(toBilling()), { text: "ok, I will help myself" }] },
      { triage: { policy: { decideToolCall: () => "NEEDS_APPROVAL" } } },
    );
    const paused = await t.triage.run("I want a refund");
    const resumed = await t.make().triage.resume(roundTrip(paused.state), {
      h1: { approve: false, reason: "no transfers today" },
    });
    expect(resumed.text).toBe("ok, I will help myself");
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(resultOf(t.providers.triage.requests[1]!.messages, "h1")).toMatchObject({
      isError: true,
    });
    expect(String(resultOf(resumed.messages, "h1")!.output)).toContain("no transfers today");
    expect(resumed.agent).toBe("triage");
    expect(resumed.steps.map((step) => step.agent)).toEqual(["triage", "triage"]);
    expect(handoffsOf(t.events)).toEqual([]);
  });
});

describe("one handoff per step", () => {
  const ONE_PER_STEP = "not run: one handoff per step, and this step's is transfer_to_billing";

  it("a later handoff call of the response is neither gated nor run: its error names the step's handoff; other calls run", async () => {
    const asked: string[] = [];
    const t = team(
      {
        triage: [
          turn(
            call("l1", "lookup", { q: "order" }),
            toBilling("h1"),
            toSupport("h2"),
            toBilling("h3"),
          ),
        ],
        billing: [{ text: "billing here" }],
      },
      {
        // A failure of any kind would end the run at once with maxRetries 0.
        triage: {
          maxRetries: 0,
          policy: {
            decideToolCall: ({ call: c }) => {
              asked.push(c.name);
              return "ALLOW";
            },
          },
        },
      },
    );
    const result = await t.triage.run("I want a refund");
    expect(result.status).toBe("completed");
    expect(asked).toEqual(["lookup", "transfer_to_billing"]);
    expect(t.ran).toEqual(["lookup order"]);
    expect(resultOf(result.messages, "h2")).toEqual({
      toolCallId: "h2",
      toolName: "transfer_to_support",
      output: ONE_PER_STEP,
      isError: true,
    });
    expect(resultOf(result.messages, "h3")).toMatchObject({ output: ONE_PER_STEP, isError: true });
    expect(t.providers.support.requests).toHaveLength(0);
    expect(t.providers.billing.requests).toHaveLength(1);
    expect(result.agent).toBe("billing");
    expect(handoffsOf(t.events)).toHaveLength(1);
    expect(result.state.retries).not.toHaveProperty("transfer_to_support");
    expect(result.state.unavailableCalls).not.toHaveProperty("transfer_to_support");
  });

  it("when the first handoff is denied, the later one is still not run and the run stays on the source", async () => {
    const t = team(
      { triage: [turn(toBilling("h1"), toSupport("h2")), { text: "staying" }] },
      { triage: { policy: { decideToolCall: () => "DENY" } } },
    );
    const result = await t.triage.run("help");
    expect(resultOf(result.messages, "h2")).toMatchObject({ output: ONE_PER_STEP, isError: true });
    expect(t.providers.support.requests).toHaveLength(0);
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(result.agent).toBe("triage");
  });
});

describe("a handoff in a step that pauses", () => {
  const pausing = () =>
    team({
      triage: [turn(toBilling("h1"), call("s1", "send", { to: "bob" }))],
      billing: [{ text: "billing here" }],
    });

  it("takes effect only when the resume finishes the step (the other call approved)", async () => {
    const t = pausing();
    const paused = await t.triage.run("refund and tell bob");
    expect(paused.status).toBe("needs_approval");
    expect(paused.pending).toMatchObject([{ toolCallId: "s1" }]);
    expect(paused.state.agent).toBe("triage");
    expect(paused.agent).toBe("triage");
    expect(t.providers.billing.requests).toHaveLength(0);
    expect(handoffsOf(t.events)).toEqual([]);

    const resumed = await t
      .make()
      .triage.resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(t.ran).toEqual(["send bob"]);
    expect(resumed.text).toBe("billing here");
    expect(resumed.steps.map((step) => step.agent)).toEqual(["triage", "billing"]);
    expect(resultOf(resumed.messages, "h1")).toMatchObject({
      output: { agent: "billing" },
      isError: false,
    });
    expect(handoffsOf(t.events)).toMatchObject([
      { toolCallId: "h1", from: "triage", to: "billing" },
    ]);
    expect(resumed.agent).toBe("billing");
  });

  it("the other call denied on resume still closes the step: the allowed handoff takes effect", async () => {
    const t = pausing();
    const paused = await t.triage.run("refund and tell bob");
    const resumed = await t
      .make()
      .triage.resume(roundTrip(paused.state), { s1: { approve: false } });
    expect(t.ran).toEqual([]);
    expect(t.providers.billing.requests).toHaveLength(1);
    expect(resumed.agent).toBe("billing");
  });
});

describe("inputFilter", () => {
  it("replaces the transcript the target continues with; it gets a frozen copy, from, to, runId and deps; the steps keep the record", async () => {
    const inputs: unknown[] = [];
    const filtered: Message[] = [{ role: "user", content: "Customer wants 5 back for order 7" }];
    const billingProvider = scriptedProvider([
      turn(call("r1", "refund", { amount: 5 })),
      { text: "done" },
    ]);
    const billing = new AgentLoop({
      name: "billing",
      provider: billingProvider,
      tools: [
        tool({ name: "refund", input: z.object({ amount: z.number() }), execute: () => "ok" }),
      ],
    });
    const triage = new AgentLoop({
      name: "triage",
      provider: scriptedProvider([{ text: "Let me transfer you", toolCalls: [toBilling()] }]),
      deps: { tenant: "acme" },
      handoffs: [
        handoff(() => billing, {
          name: "billing",
          inputFilter: async (input) => {
            inputs.push(input);
            await Promise.resolve();
            return filtered;
          },
        }),
      ],
    });
    const result = await triage.run("I want a refund", { runId: "run-h" });
    expect(billingProvider.requests[0]!.messages).toEqual(filtered);
    expect(billingProvider.requests[1]!.messages.slice(0, 1)).toEqual(filtered);
    expect(inputs).toHaveLength(1);
    const input = inputs[0] as {
      messages: Message[];
      from: string;
      to: string;
      runId: string;
      deps: unknown;
    };
    expect({ from: input.from, to: input.to, runId: input.runId, deps: input.deps }).toEqual({
      from: "triage",
      to: "billing",
      runId: "run-h",
      deps: { tenant: "acme" },
    });
    expect(Object.isFrozen(input.messages)).toBe(true);
    expect(input.messages[0]).toEqual({ role: "user", content: "I want a refund" });
    expect(resultOf(input.messages, "h1")).toMatchObject({ output: { agent: "billing" } });
    expect(result.steps).toHaveLength(3);
    expect(result.steps[0]!.calls[0]).toMatchObject({ toolName: "transfer_to_billing" });
  });

  it("removeToolCalls hands over the transcript without tool calls and tool results", async () => {
    const billingProvider = scriptedProvider([{ text: "billing here" }]);
    const billing = new AgentLoop({ name: "billing", provider: billingProvider });
    const triage = new AgentLoop({
      name: "triage",
      provider: scriptedProvider([
        { text: "Let me look", toolCalls: [call("l1", "lookup", { q: "order" })] },
        { text: "Transferring", toolCalls: [toBilling()] },
      ]),
      tools: [
        tool({ name: "lookup", input: z.object({ q: z.string() }), execute: () => "order 7" }),
      ],
      handoffs: [handoff(() => billing, { name: "billing", inputFilter: removeToolCalls })],
    });
    await triage.run("I want a refund");
    const handed = billingProvider.requests[0]!.messages;
    expect(hasToolParts(handed)).toBe(false);
    expect(handed[0]).toEqual({ role: "user", content: "I want a refund" });
    const texts = handed.flatMap((m) =>
      m.role === "assistant" ? m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [],
    );
    expect(texts).toEqual(["Let me look", "Transferring"]);
  });

  it("removeToolCalls called directly: drops tool-call parts and tool messages, keeps the rest, leaves its input alone", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "looking" },
          { type: "tool-call", id: "l1", name: "lookup", args: "{}" },
        ],
      },
      {
        role: "tool",
        results: [{ toolCallId: "l1", toolName: "lookup", output: "x", isError: false }],
      },
      { role: "assistant", parts: [{ type: "text", text: "found it" }] },
    ];
    const before = JSON.stringify(messages);
    const out = removeToolCalls({
      messages,
      from: "triage",
      to: "billing",
      runId: "r",
      deps: undefined,
    } as never);
    expect(out).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", parts: [{ type: "text", text: "looking" }] },
      { role: "assistant", parts: [{ type: "text", text: "found it" }] },
    ]);
    expect(JSON.stringify(messages)).toBe(before);
  });

  const filtered = (inputFilter: (input: never) => unknown) => {
    const billingProvider = scriptedProvider([{ text: "billing here" }]);
    const billing = new AgentLoop({ name: "billing", provider: billingProvider });
    const triage = new AgentLoop({
      name: "triage",
      provider: scriptedProvider([turn(toBilling())]),
      handoffs: [handoff(() => billing, { name: "billing", inputFilter: inputFilter as never })],
    });
    return { triage, billingProvider };
  };

  it("a filter that throws rejects the run with PolicyError (callback inputFilter, the throw as cause); the target is never called", async () => {
    const boom = new Error("boom");
    const { triage, billingProvider } = filtered(() => {
      throw boom;
    });
    const error = await triage.run("I want a refund").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as PolicyError).callback).toBe("inputFilter");
    expect((error as PolicyError).cause).toBe(boom);
    expect(billingProvider.requests).toHaveLength(0);
  });

  it.each([
    ["a string", () => "the transcript"],
    ["undefined", () => undefined],
    ["a message of no known role", () => [{ role: "system", content: "x" }]],
    ["a user message without content", () => [{ role: "user" }]],
    ["a promise of a number", async () => 42],
    // The transcript's invariant, as prepareStep's messages are held to it.
    [
      "a tool result that answers no call",
      () => [
        { role: "user", content: "x" },
        {
          role: "tool",
          results: [{ toolCallId: "nope", toolName: "lookup", output: "x", isError: false }],
        },
      ],
    ],
    [
      "a tool call without its result",
      () => [
        { role: "user", content: "x" },
        { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "lookup", args: "{}" }] },
      ],
    ],
  ])(
    "a filter that returns %s rejects the run with PolicyError; the target is never called",
    async (_, bad) => {
      const { triage, billingProvider } = filtered(bad);
      const error = await triage.run("I want a refund").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).callback).toBe("inputFilter");
      expect(billingProvider.requests).toHaveLength(0);
    },
  );
});

describe("construction errors are TypeErrors naming the option", () => {
  const provider = scriptedProvider([]);
  const named = (name: string, extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({ name, provider, ...extra });

  it("a target must be an AgentLoop itself: an object shaped like one, or made from its prototype, is refused", async () => {
    const lookalike = Object.create(AgentLoop.prototype) as AgentLoop;
    for (const target of [{}, lookalike, { name: "billing", run: () => {} }]) {
      expect(() => handoff(target as never)).toThrow(/the target must be an AgentLoop/);
      expect(() => named("triage", { handoffs: [target as never] })).toThrow(
        /must be an AgentLoop or handoff\(loop, options\)/,
      );
    }
    // A function target is asked at run(): what it returns must be a loop too.
    const triage = named("triage", {
      provider: scriptedProvider([{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }]),
      handoffs: [handoff(() => lookalike, { name: "billing" })],
    });
    await expect(triage.run("go")).rejects.toThrow(/must return an AgentLoop/);
  });

  it("a loop with handoffs needs a name", () => {
    expect(() => new AgentLoop({ provider, handoffs: [named("billing")] })).toThrow(TypeError);
    expect(() => new AgentLoop({ provider, handoffs: [named("billing")] })).toThrow(/\bname\b/);
  });

  it("every target needs a name", () => {
    const unnamed = new AgentLoop({ provider });
    expect(() => named("triage", { handoffs: [unnamed] })).toThrow(TypeError);
    expect(() => named("triage", { handoffs: [unnamed] })).toThrow(/\bname\b/);
  });

  it.each([
    ["empty", ""],
    ["with a space", "billing team"],
    ["65 characters", "a".repeat(65)],
    ["with a dot", "billing.v2"],
    ["not a string", 7],
  ])("a name %s is refused", (_, name) => {
    expect(() => new AgentLoop({ provider, name: name as never })).toThrow(TypeError);
    expect(() => new AgentLoop({ provider, name: name as never })).toThrow(/\bname\b/);
  });

  it("names of letters, digits, _ and - up to 64 characters are accepted", () => {
    expect(named("Billing_team-2").run).toBeTypeOf("function");
    expect(() => named("b".repeat(64))).not.toThrow();
  });

  it("two different loops with one name in a handoff graph", () => {
    const billing = named("billing");
    const otherBilling = named("billing");
    const support = named("support", { handoffs: [otherBilling] });
    expect(() => named("triage", { handoffs: [billing, support] })).toThrow(TypeError);
    expect(() => named("triage", { handoffs: [billing, support] })).toThrow(/billing/);
  });

  it("through a lazy target built later, two loops of one name are refused when the run starts, before any model call", async () => {
    let support: AgentLoop | undefined;
    const triageProvider = scriptedProvider([{ text: "never" }]);
    const triage = new AgentLoop({
      name: "triage",
      provider: triageProvider,
      handoffs: [named("billing"), handoff(() => support!, { name: "support" })],
    });
    support = named("support", { handoffs: [named("billing")] });
    const error = await triage.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/billing/);
    expect(triageProvider.requests).toHaveLength(0);
  });

  it("one loop reached twice in a graph is one agent, not a clash", () => {
    const billing = named("billing");
    const viaSupport = named("support", { handoffs: [billing] });
    expect(() => named("triage", { handoffs: [billing, viaSupport] })).not.toThrow();
  });

  it("two handoffs with one tool name", () => {
    const billing = named("billing");
    const support = named("support");
    expect(() =>
      named("triage", {
        handoffs: [
          billing,
          handoff(() => support, { name: "support", toolName: "transfer_to_billing" }),
        ],
      }),
    ).toThrow(TypeError);
    expect(() =>
      named("triage", {
        handoffs: [
          handoff(() => billing, { name: "billing", toolName: "escalate" }),
          handoff(() => support, { name: "support", toolName: "escalate" }),
        ],
      }),
    ).toThrow(/escalate/);
  });

  it("a handoff tool named like one of the loop's tools", () => {
    const clash = tool({ name: "transfer_to_billing", input: z.object({}), execute: () => "x" });
    expect(() => named("triage", { tools: [clash], handoffs: [named("billing")] })).toThrow(
      TypeError,
    );
    expect(() => named("triage", { tools: [clash], handoffs: [named("billing")] })).toThrow(
      /transfer_to_billing/,
    );
  });

  it("a handoff to the loop itself", () => {
    let self: AgentLoop | undefined;
    const make = () => {
      self = named("triage", { handoffs: [handoff(() => self!, { name: "triage" })] });
      return self;
    };
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/triage/);
  });

  it("a misspelt handoffs option gets a did-you-mean", () => {
    expect(() => named("triage", { handof: [named("billing")] } as never)).toThrow(
      /did you mean `handoffs`/,
    );
  });

  it("handoffs must be an array of loops and handoff()s", () => {
    expect(() => named("triage", { handoffs: named("billing") as never })).toThrow(/handoffs/);
    expect(() => named("triage", { handoffs: [42] as never })).toThrow(TypeError);
    expect(() => named("triage", { handoffs: [42] as never })).toThrow(/handoffs/);
  });

  it("handoff(): a misspelt option gets a did-you-mean (checkKeys)", () => {
    const billing = named("billing");
    expect(() =>
      handoff(() => billing, { name: "billing", inputFiltr: removeToolCalls } as never),
    ).toThrow(/did you mean `inputFilter`/);
  });

  it("handoff(): a bad toolName is a TypeError naming `toolName`", () => {
    const billing = named("billing");
    const make = () =>
      named("triage", {
        handoffs: [handoff(() => billing, { name: "billing", toolName: "bad name" })],
      });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/toolName/);
  });

  it("handoff() checks its own options: a name, a function, known keys, a tool name", () => {
    const billing = named("billing");
    const inTriage = (entry: () => unknown) => () =>
      named("triage", { handoffs: [entry() as never] });
    expect(inTriage(() => handoff(() => billing, {} as never))).toThrow(/\bname\b/);
    expect(inTriage(() => handoff("billing" as never, { name: "billing" }))).toThrow(TypeError);
    expect(
      inTriage(() =>
        handoff(() => billing, { name: "billing", inputFiltr: removeToolCalls } as never),
      ),
    ).toThrow(TypeError);
    expect(inTriage(() => handoff(() => billing, { name: "bad name" }))).toThrow(/\bname\b/);
    for (const bad of [
      () => handoff(() => billing, {} as never),
      () => handoff(() => billing, { name: "billing", toolName: "bad name" }),
      () => handoff(() => billing, { name: "billing", inputFilter: "removeToolCalls" as never }),
    ]) {
      expect(inTriage(bad)).toThrow(TypeError);
    }
  });
});

describe("resume", () => {
  /** Triage hands off to billing, whose refund waits for approval: the run pauses on billing. */
  const pausedOnBilling = async (options: Parameters<typeof team>[1] = {}) => {
    const t = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "refunded" }],
      },
      {
        ...options,
        billing: { policy: { decideToolCall: () => "NEEDS_APPROVAL" }, ...options.billing },
      },
    );
    const paused = await t.triage.run("I want a refund");
    expect(paused.status).toBe("needs_approval");
    expect(paused.state.agent).toBe("billing");
    expect(paused.agent).toBe("billing");
    return { ...t, paused };
  };

  it("a loop of the graph that reaches state.agent resumes with that agent (the start loop, the agent itself, one that reaches it)", async () => {
    const t = await pausedOnBilling();
    const viaTriage = await t
      .make()
      .triage.resume(roundTrip(t.paused.state), { r1: { approve: true } });
    expect(viaTriage.status).toBe("completed");
    expect(viaTriage.text).toBe("refunded");
    expect(viaTriage.steps.map((step) => step.agent)).toEqual(["triage", "billing", "billing"]);
    expect(viaTriage.agent).toBe("billing");
    expect(t.providers.triage.requests).toHaveLength(1);
    expect(t.ran).toEqual(["refund 5"]);

    const again = await pausedOnBilling();
    const direct = await again
      .make()
      .billing.resume(roundTrip(again.paused.state), { r1: { approve: true } });
    expect(direct.agent).toBe("billing");
    expect(again.ran).toEqual(["refund 5"]);

    const third = await pausedOnBilling();
    const { billing } = third.make();
    const reaching = new AgentLoop({
      name: "frontdesk",
      provider: scriptedProvider([]),
      handoffs: [billing],
      trustState: true,
    });
    const viaOther = await reaching.resume(roundTrip(third.paused.state), {
      r1: { approve: true },
    });
    expect(viaOther.agent).toBe("billing");
    expect(third.ran).toEqual(["refund 5"]);
  });

  it("a loop that does not reach state.agent: ResumeError naming the agent, nothing runs, the state is not used up", async () => {
    const t = await pausedOnBilling();
    const strangers = [
      new AgentLoop({
        name: "other",
        provider: scriptedProvider([]),
        tools: [t.tools.refund],
        trustState: true,
      }),
      new AgentLoop({ provider: scriptedProvider([]), tools: [t.tools.refund], trustState: true }),
      t.make().support,
    ];
    for (const loop of strangers) {
      const error = await loop
        .resume(roundTrip(t.paused.state), { r1: { approve: true } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeError);
      expect((error as Error).message).toContain("billing");
    }
    expect(t.ran).toEqual([]);
    expect(t.providers.billing.requests).toHaveLength(1);
    const resumed = await t
      .make()
      .triage.resume(roundTrip(t.paused.state), { r1: { approve: true } });
    expect(resumed.agent).toBe("billing");
  });

  it("a state without agent (a loop without a name) resumes on the loop as before", async () => {
    const ran: string[] = [];
    const send = tool({
      name: "send",
      input: z.object({}),
      needsApproval: true,
      execute: () => {
        ran.push("send");
        return "sent";
      },
    });
    const provider = scriptedProvider([turn(call("s1", "send")), { text: "sent" }]);
    const make = () => new AgentLoop({ provider, tools: [send], trustState: true });
    const paused = await make().run("go");
    expect("agent" in paused.state).toBe(false);
    const resumed = await make().resume(roundTrip(paused.state), { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
    expect(ran).toEqual(["send"]);
  });

  it("with a signingKey, a forged state.agent is a ResumeError and nothing runs", async () => {
    const t = await pausedOnBilling({
      triage: { trustState: false, signingKey: "k", allowReplay: true },
    });
    expect(typeof t.paused.state.signature).toBe("string");
    const loops = () => t.make();
    for (const forge of [
      (state: RunState) => ({ ...state, agent: "triage" }),
      (state: RunState) => ({ ...state, agent: "support" }),
      (state: RunState) => {
        const { agent: _, ...rest } = state;
        return rest as RunState;
      },
    ]) {
      const forged = forge(roundTrip(t.paused.state));
      const error = await loops()
        .triage.resume(forged, { r1: { approve: true } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeError);
    }
    expect(t.ran).toEqual([]);
    expect(t.providers.triage.requests).toHaveLength(1);
    expect(t.providers.billing.requests).toHaveLength(1);
    const genuine = await loops().triage.resume(roundTrip(t.paused.state), {
      r1: { approve: true },
    });
    expect(genuine.agent).toBe("billing");
    expect(t.ran).toEqual(["refund 5"]);
  });

  it("with decisions carrying digests, a forged state.agent is a ResumeError too", async () => {
    const t = await pausedOnBilling({ triage: { trustState: false, allowReplay: true } });
    const digest = t.paused.pending![0]!.digest;
    const forged = { ...roundTrip(t.paused.state), agent: "triage" };
    const error = await t
      .make()
      .triage.resume(forged, { r1: { approve: true, digest } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResumeError);
    expect(t.ran).toEqual([]);
    const genuine = await t
      .make()
      .triage.resume(roundTrip(t.paused.state), { r1: { approve: true, digest } });
    expect(genuine.agent).toBe("billing");
  });
});

describe("what stays the run's", () => {
  it("the starting loop's maxSteps counts across agents (the target's own maxSteps does not apply)", async () => {
    const short = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "never" }],
      },
      { triage: { maxSteps: 2 }, billing: { maxSteps: 10 } },
    );
    const result = await short.triage.run("I want a refund");
    expect(result.status).toBe("max_steps");
    expect(result.steps).toHaveLength(2);
    expect(short.providers.billing.requests).toHaveLength(1);

    const long = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "refunded" }],
      },
      { triage: { maxSteps: 5 }, billing: { maxSteps: 1 } },
    );
    const finished = await long.triage.run("I want a refund");
    expect(finished.status).toBe("completed");
    expect(finished.steps).toHaveLength(3);
  });

  it("the starting loop's limits apply across agents", async () => {
    const t = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "never" }],
      },
      { triage: { limits: { modelCalls: 2 } }, billing: { limits: { modelCalls: 100 } } },
    );
    const result = await t.triage.run("I want a refund");
    expect(result.status).toBe("limit_reached");
    expect(result.limit).toMatchObject({ name: "modelCalls", value: 2 });
    expect(t.providers.billing.requests).toHaveLength(1);
    expect(t.ran).toEqual(["refund 5"]);
  });

  it("the run's output, deps and listeners come from the starting loop", async () => {
    type Deps = { tenant: string };
    const seen: string[] = [];
    const billingEvents: LoopEvent[] = [];
    const triageEvents: LoopEvent[] = [];
    const billingProvider = scriptedProvider([
      turn(call("r1", "refund", { amount: 5 })),
      turn(call("f1", "final_answer", { refunded: 5 })),
    ]);
    const refund = tool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      execute: ({ amount }, ctx: ToolContext<Deps>) => {
        seen.push(`refund ${amount} for ${ctx.deps.tenant}`);
        return "ok";
      },
    });
    const billing = new AgentLoop<Deps>({
      name: "billing",
      provider: billingProvider,
      tools: [refund],
      deps: { tenant: "billing's own" },
      onEvent: (event) => billingEvents.push(event),
    });
    const triage = new AgentLoop<Deps>({
      name: "triage",
      provider: scriptedProvider([turn(toBilling())]),
      deps: { tenant: "acme" },
      handoffs: [billing],
      output: { schema: z.object({ refunded: z.number() }), mode: "tool" },
      onEvent: (event) => triageEvents.push(event),
    });
    const result = await triage.run("I want a refund");
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ refunded: 5 });
    expect(toolNames(billingProvider.requests[0])).toContain("final_answer");
    expect(seen).toEqual(["refund 5 for acme"]);
    expect(billingEvents).toEqual([]);
    expect(triageEvents.filter((e) => e.type === "step-start").map((e) => e.step)).toEqual([
      0, 1, 2,
    ]);
  });

  it("a run's own instructions are for the agent it starts with", async () => {
    const t = team({ triage: [turn(toBilling())], billing: [{ text: "ok" }] });
    await t.triage.run("I want a refund", { instructions: "Triage, run-level prompt" });
    expect(t.providers.triage.requests[0]!.system).toBe("Triage, run-level prompt");
    expect(t.providers.billing.requests[0]!.system).toBe("You are billing.");
  });

  it("stopWhen: hasToolCall of a target's tool is accepted on the source and fires on the target's step; a typo is still refused", async () => {
    const t = team(
      {
        triage: [turn(toBilling())],
        billing: [turn(call("r1", "refund", { amount: 5 })), { text: "never" }],
      },
      { triage: { stopWhen: [hasToolCall("refund")] } },
    );
    const result = await t.triage.run("I want a refund");
    expect(result.status).toBe("stopped_by_condition");
    expect(result.steps.map((step) => step.agent)).toEqual(["triage", "billing"]);
    expect(t.ran).toEqual(["refund 5"]);
    await expect(t.make().triage.run("x", { stopWhen: [hasToolCall("refnd")] })).rejects.toThrow(
      /refund/,
    );
    expect(() => team({}, { triage: { stopWhen: [hasToolCall("refnd")] } })).toThrow(TypeError);
  });
});

describe("lazy handoffs", () => {
  it("hasToolCall of a lazy target's tool: accepted at construction, fires on the target's step; a typo rejects the run", async () => {
    let billing: AgentLoop | undefined;
    const triageProvider = scriptedProvider([turn(toBilling())]);
    const make = (stopWhen: ReturnType<typeof hasToolCall>[]) =>
      new AgentLoop({
        name: "triage",
        provider: triageProvider,
        handoffs: [handoff(() => billing!, { name: "billing" })],
        stopWhen,
      });
    const triage = make([hasToolCall("refund")]);
    const typo = make([hasToolCall("refnd")]);
    billing = new AgentLoop({
      name: "billing",
      provider: scriptedProvider([turn(call("r1", "refund", { amount: 5 })), { text: "never" }]),
      tools: [
        tool({ name: "refund", input: z.object({ amount: z.number() }), execute: () => "ok" }),
      ],
    });
    const result = await triage.run("I want a refund");
    expect(result.status).toBe("stopped_by_condition");
    expect(result.steps.map((step) => step.agent)).toEqual(["triage", "billing"]);
    const error = await typo.run("I want a refund").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/refund/);
    expect(triageProvider.requests).toHaveLength(1);
  });

  it("handoff(() => loop, { name }) makes a cycle: triage ⇄ billing, each step on its agent", async () => {
    const triageProvider = scriptedProvider([turn(toBilling("h1")), { text: "back at triage" }]);
    const billingProvider = scriptedProvider([turn(call("h2", "transfer_to_triage"))]);
    const events: LoopEvent[] = [];
    let triage: AgentLoop | undefined;
    const billing = new AgentLoop({
      name: "billing",
      provider: billingProvider,
      instructions: "You are billing.",
      handoffs: [handoff(() => triage!, { name: "triage" })],
    });
    triage = new AgentLoop({
      name: "triage",
      provider: triageProvider,
      instructions: "You are triage.",
      handoffs: [billing],
      onEvent: (event) => events.push(event),
    });
    const result = await triage.run("I want a refund");
    expect(result.text).toBe("back at triage");
    expect(result.steps.map((step) => step.agent)).toEqual(["triage", "billing", "triage"]);
    expect(handoffsOf(events).map((e) => [e.from, e.to, e.toolCallId, e.step])).toEqual([
      ["triage", "billing", "h1", 0],
      ["billing", "triage", "h2", 1],
    ]);
    expect(billingProvider.requests[0]!.system).toBe("You are billing.");
    expect(toolNames(billingProvider.requests[0])).toEqual(["transfer_to_triage"]);
    expect(triageProvider.requests[1]!.system).toBe("You are triage.");
    expect(result.agent).toBe("triage");
  });

  it("a lazy target whose name is not the one declared is refused, never run under the wrong name", async () => {
    const supportProvider = scriptedProvider([{ text: "support here" }]);
    const support = new AgentLoop({ name: "support", provider: supportProvider });
    const outcome = await (async () => {
      const triage = new AgentLoop({
        name: "triage",
        provider: scriptedProvider([turn(toBilling())]),
        handoffs: [handoff(() => support, { name: "billing" })],
      });
      return triage.run("I want a refund");
    })().catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/billing/);
    expect(supportProvider.requests).toHaveLength(0);
  });
});
