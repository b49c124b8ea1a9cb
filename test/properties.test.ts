import fc from "fast-check";
import {
  AgentLoop,
  type Decision,
  type LoopEvent,
  type Message,
  type PreToolCallVerdict,
  RetryError,
  type RunResult,
  tool,
} from "tollgate";
import { functionProvider, type TurnReply } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const argsKinds = ["valid", "schema", "json", "empty"] as const;
const hookKinds = [
  "none",
  "block",
  "result",
  "args",
  "badArgs",
  "confirmTrue",
  "confirmFalse",
  "stop",
  "throw",
] as const;
const decisions = [undefined, "ALLOW", "DENY", "NEEDS_APPROVAL"] as const;
const behaviours = ["ok", "throw", "retry", "undefined"] as const;

const callArb = fc.record({
  name: fc.constantFrom("a", "b", "c", "missing"),
  args: fc.constantFrom(...argsKinds),
  hook: fc.constantFrom(...hookKinds),
  decision: fc.constantFrom(...decisions),
  behaviour: fc.constantFrom(...behaviours),
});
const scenarioArb = fc.record({
  steps: fc.array(fc.array(callArb, { maxLength: 4 }), { maxLength: 5 }),
  stream: fc.boolean(),
  parallel: fc.integer({ min: 1, max: 4 }),
  hookCount: fc.integer({ min: 0, max: 2 }),
});

function argsText(kind: (typeof argsKinds)[number]): string {
  switch (kind) {
    case "valid":
      return '{"n":1}';
    case "schema":
      return '{"n":"one"}';
    case "json":
      return '{"n":';
    case "empty":
      return "";
  }
}

/** Runs a random scenario; returns what happened, whatever the ending. */
async function play(scenario: {
  steps: {
    name: string;
    args: (typeof argsKinds)[number];
    hook: (typeof hookKinds)[number];
    decision: (typeof decisions)[number];
    behaviour: (typeof behaviours)[number];
  }[][];
  stream: boolean;
  parallel: number;
  hookCount: number;
}) {
  const plan = new Map<string, (typeof scenario.steps)[number][number]>();
  const executed: string[] = [];
  const behave = (id: string) => {
    executed.push(id);
    switch (plan.get(id)?.behaviour) {
      case "throw":
        throw new Error("tool failed");
      case "retry":
        throw new RetryError("again");
      case "undefined":
        return undefined;
      default:
        return { id };
    }
  };
  const input = z.object({ n: z.number() });
  const tools = [
    tool({ name: "a", input, maxRetries: 3, execute: (_args, ctx) => behave(ctx.toolCallId) }),
    tool({
      name: "b",
      input: z.object({ n: z.number().optional() }),
      maxRetries: 3,
      execute: async (_args, ctx) => behave(ctx.toolCallId),
    }),
    tool({
      name: "c",
      input,
      maxRetries: 3,
      sequential: true,
      execute: (_args, ctx) => behave(ctx.toolCallId),
    }),
  ];
  const provider = functionProvider(
    (_request, { step }): TurnReply => {
      const calls = scenario.steps[step];
      if (!calls || calls.length === 0) return { text: `answer ${step}` };
      return {
        toolCalls: calls.map((call, index) => {
          const id = `s${step}c${index}`;
          plan.set(id, call);
          return { id, name: call.name, args: argsText(call.args) };
        }),
      };
    },
    { stream: scenario.stream, chunkSize: 3 },
  );
  const hook =
    (position: number) =>
    (call: { toolCallId: string }): PreToolCallVerdict | undefined => {
      const kind = position === 0 ? plan.get(call.toolCallId)?.hook : "none";
      switch (kind) {
        case "block":
          return { block: true };
        case "result":
          return { result: "from hook" };
        case "args":
          return { args: { n: 2 } };
        case "badArgs":
          return { args: { n: "bad" } };
        case "confirmTrue":
          return { confirm: true };
        case "confirmFalse":
          return { confirm: false };
        case "stop":
          return { stop: true, stopReason: "random stop" };
        case "throw":
          throw new Error("hook failed");
        default:
          return undefined;
      }
    };
  const events: LoopEvent[] = [];
  const loop = new AgentLoop({
    provider,
    tools,
    maxSteps: 6,
    maxRetries: 2,
    maxParallelToolCalls: scenario.parallel,
    preToolCall: Array.from({ length: scenario.hookCount }, (_, i) => hook(i)),
    policy: { decideToolCall: ({ call }): Decision => plan.get(call.id)?.decision },
    onEvent: (event) => events.push(event),
  });
  let result: RunResult | undefined;
  let messages: Message[] | undefined;
  try {
    result = await loop.run("go");
    messages = result.messages;
  } catch (error) {
    messages = (error as { messages?: Message[] }).messages;
  }
  return { result, messages, events, executed };
}

/** Every tool call has exactly one result, in the tool message right after its assistant message. */
function expectTranscriptInvariant(messages: Message[], paused: boolean) {
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const ids = message.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
    const next = messages[index + 1];
    if (ids.length === 0) {
      expect(next?.role).not.toBe("tool");
      return;
    }
    if (paused && index === messages.length - 1) return;
    expect(next?.role).toBe("tool");
    if (next?.role === "tool") expect(next.results.map((r) => r.toolCallId)).toEqual(ids);
  });
  const toolMessages = messages.filter((m) => m.role === "tool").length;
  const withCalls = messages.filter(
    (m) => m.role === "assistant" && m.parts.some((p) => p.type === "tool-call"),
  ).length;
  expect(toolMessages).toBe(paused ? withCalls - 1 : withCalls);
}

describe("properties", () => {
  it("the transcript invariant holds for every ending of random runs", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { result, messages } = await play(scenario);
        if (!messages) return; // a provider error carries no transcript; none is scripted here
        expectTranscriptInvariant(messages, result?.status === "needs_approval");
        if (result)
          expectTranscriptInvariant(result.state.messages, result.status === "needs_approval");
      }),
      { numRuns: 300 },
    );
  });

  it("no tool runs without an ALLOW verdict, and none runs twice", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { events, executed } = await play(scenario);
        const verdicts = new Map<string, string[]>();
        for (const event of events) {
          if (event.type === "tool-decision")
            verdicts.set(event.toolCallId, [
              ...(verdicts.get(event.toolCallId) ?? []),
              event.verdict,
            ]);
        }
        expect(new Set(executed).size).toBe(executed.length);
        for (const id of executed) expect(verdicts.get(id)).toEqual(["allow"]);
      }),
      { numRuns: 300 },
    );
  });

  it("every call gets exactly one tool-call, one tool-decision and, unless pending, one tool-result", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const { events, result } = await play(scenario);
        if (!result) return;
        const count = (type: string) => {
          const counts = new Map<string, number>();
          for (const e of events)
            if (e.type === type && "toolCallId" in e)
              counts.set(e.toolCallId, (counts.get(e.toolCallId) ?? 0) + 1);
          return counts;
        };
        const calls = count("tool-call");
        const decided = count("tool-decision");
        const resulted = count("tool-result");
        const pending = new Set(result.pending?.map((p) => p.toolCallId));
        for (const [id, n] of calls) {
          expect(n).toBe(1);
          expect(decided.get(id)).toBe(1);
          expect(resulted.get(id)).toBe(pending.has(id) ? undefined : 1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
