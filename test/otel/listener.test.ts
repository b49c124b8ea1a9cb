import { SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type PreToolCallHook,
  tool,
} from "tollgate";
import { otelListener } from "tollgate/otel";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * `tollgate/otel` (DESIGN section 11): spans per run, model call and tool call with the GenAI
 * semantic-convention names, the gate's verdict as `tollgate.gate.*`, content only when asked,
 * nesting by explicit parent contexts (no context manager is registered here), and no span
 * left open however a run ends. Spans go to the SDK's in-memory exporter.
 */

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("otel-test");
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => {
    const found = spans().filter((span) => span.name === name);
    expect(found.length, `spans named ${name}`).toBeGreaterThan(0);
    return found;
  };
  const one = (name: string) => {
    const found = named(name);
    expect(found, `one span named ${name}`).toHaveLength(1);
    return found[0]!;
  };
  return { tracer, spans, named, one };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

const USAGE = { inputTokens: 7, outputTokens: 3 };

const add = tool({
  name: "add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return a + b;
  },
});

const send = tool({
  name: "send",
  description: "Sends mail",
  input: z.object({ to: z.string() }),
  needsApproval: true,
  execute: ({ to }) => `sent to ${to}`,
});

const broken = tool({
  name: "broken",
  description: "Always throws",
  input: z.object({}),
  execute: () => {
    throw new RangeError("out of range");
  },
});

const blockSecrets: PreToolCallHook = (call) =>
  JSON.stringify(call.args).includes("secret") ? { block: "no secrets" } : undefined;

function loopWith(
  tracer: Tracer,
  turns: Parameters<typeof scriptedProvider>[0],
  extra: Partial<AgentLoopOptions> = {},
) {
  return new AgentLoop({
    provider: scriptedProvider(turns, { name: "acme", model: "acme-1" }),
    tools: [add, send, broken],
    onEvent: otelListener(tracer, { agentName: "calc" }),
    trustState: true,
    ...extra,
  });
}

describe("otelListener: spans and attributes", () => {
  it("names, kinds and GenAI attributes of run, chat and tool spans; tools under the run", async () => {
    const t = tracing();
    const loop = loopWith(t.tracer, [
      { toolCalls: [{ id: "c1", name: "add", args: { a: 1, b: 2 } }], usage: USAGE },
      { text: "3", usage: USAGE },
    ]);
    const result = await loop.run("1+2?");
    expect(result.status).toBe("completed");

    const run = t.one("invoke_agent calc");
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "calc",
      "gen_ai.conversation.id": result.state.runId,
      "tollgate.run.status": "completed",
      "gen_ai.usage.input_tokens": 14,
      "gen_ai.usage.output_tokens": 6,
    });
    expect(parentOf(run)).toBeUndefined();

    const chats = t.named("chat acme-1");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(chat)).toBe(idOf(run));
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "acme",
        "gen_ai.request.model": "acme-1",
        "gen_ai.usage.input_tokens": 7,
        "gen_ai.usage.output_tokens": 3,
      });
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"])).toEqual([
      ["tool-calls"],
      ["stop"],
    ]);

    const call = t.one("execute_tool add");
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(call)).toBe(idOf(run));
    expect(call.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "add",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
      "tollgate.gate.verdict": "allow",
      "tollgate.gate.by": "default",
      "tollgate.step": 0,
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    // Without recordContent: no args, results or output text anywhere.
    for (const span of t.spans()) {
      for (const key of Object.keys(span.attributes)) {
        expect(key).not.toMatch(/arguments|result$|messages/);
      }
    }
    expect(t.spans().every((span) => span.ended)).toBe(true);
  });

  it("records args, results and the model's output only with recordContent", async () => {
    const t = tracing();
    const loop = loopWith(
      t.tracer,
      [{ toolCalls: [{ id: "c1", name: "add", args: { a: 2, b: 5 } }] }, { text: "seven" }],
      { onEvent: otelListener(t.tracer, { recordContent: true }) },
    );
    await loop.run("2+5?");
    const call = t.one("execute_tool add");
    expect(JSON.parse(call.attributes["gen_ai.tool.call.arguments"] as string)).toEqual({
      a: 2,
      b: 5,
    });
    expect(call.attributes["gen_ai.tool.call.result"]).toBe("7");
    const last = t.named("chat acme-1")[1]!;
    expect(last.attributes["gen_ai.output.messages"]).toContain("seven");
    expect(t.one("invoke_agent tollgate").attributes["gen_ai.agent.name"]).toBe("tollgate");
  });

  it("parallel calls each get their own span under their own run, across two concurrent runs", async () => {
    const t = tracing();
    const turn = (prefix: string) => ({
      toolCalls: [0, 1, 2].map((i) => ({ id: `${prefix}${i}`, name: "add", args: { a: i, b: 1 } })),
    });
    const [a, b] = await Promise.all([
      loopWith(t.tracer, [turn("a"), { text: "done" }]).run("a"),
      loopWith(t.tracer, [turn("b"), { text: "done" }]).run("b"),
    ]);
    const runs = t.named("invoke_agent calc");
    expect(runs).toHaveLength(2);
    const runSpan = (runId: string) =>
      runs.find((span) => span.attributes["tollgate.run.id"] === runId)!;
    const calls = t.named("execute_tool add");
    expect(calls).toHaveLength(6);
    for (const [result, prefix] of [
      [a, "a"],
      [b, "b"],
    ] as const) {
      const mine = calls.filter((span) =>
        String(span.attributes["gen_ai.tool.call.id"]).startsWith(prefix),
      );
      expect(mine).toHaveLength(3);
      for (const span of mine) {
        expect(parentOf(span)).toBe(idOf(runSpan(result.state.runId)));
        expect(span.spanContext().traceId).toBe(runSpan(result.state.runId).spanContext().traceId);
      }
    }
  });

  it("a blocked call still gets its span, with the verdict, who decided and why; not an error", async () => {
    const t = tracing();
    const loop = loopWith(
      t.tracer,
      [{ toolCalls: [{ id: "c1", name: "send", args: { to: "secret@x" } }] }, { text: "ok" }],
      { preToolCall: [blockSecrets] },
    );
    await loop.run("mail");
    const call = t.one("execute_tool send");
    expect(call.attributes).toMatchObject({
      "tollgate.gate.verdict": "block",
      "tollgate.gate.by": "hook:0",
      "tollgate.gate.reason": "no secrets",
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a tool that throws: its span is ERROR with error.type and the exception", async () => {
    const t = tracing();
    const loop = loopWith(
      t.tracer,
      [{ toolCalls: [{ id: "c1", name: "broken", args: {} }] }, { text: "sorry" }],
      {
        onListenerError: () => {},
      },
    );
    await loop.run("break it");
    const call = t.one("execute_tool broken");
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes["error.type"]).toBe("RangeError");
    expect(call.events.map((event) => event.name)).toContain("exception");
    expect(t.one("invoke_agent calc").status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe("otelListener: runs that end early", () => {
  it("a model error ends every open span; the run span is ERROR with error.type", async () => {
    const t = tracing();
    const loop = loopWith(t.tracer, [{ error: new TypeError("model down") }]);
    await expect(loop.run("hi")).rejects.toThrow("model down");
    const run = t.one("invoke_agent calc");
    expect(run.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "model down" });
    expect(run.attributes).toMatchObject({
      "error.type": "TypeError",
      "tollgate.run.status": "error",
    });
    const chat = t.one("chat acme-1");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(parentOf(chat)).toBe(idOf(run));
  });

  it("an abort while a tool runs ends the tool span and the run span", async () => {
    const t = tracing();
    const controller = new AbortController();
    const hang = tool({
      name: "hang",
      description: "Waits until aborted",
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          controller.abort(new Error("user gave up"));
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    });
    const loop = loopWith(t.tracer, [{ toolCalls: [{ id: "h1", name: "hang", args: {} }] }], {
      tools: [hang],
    });
    await expect(loop.run("wait", { signal: controller.signal })).rejects.toThrow("user gave up");
    const run = t.one("invoke_agent calc");
    const call = t.one("execute_tool hang");
    expect(parentOf(call)).toBe(idOf(run));
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes["tollgate.run.status"]).toBe("error");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(t.spans().every((span) => span.ended)).toBe(true);
  });

  it("a paused run ends its spans with tollgate.run.status; the resumed run is a new span linked to it", async () => {
    const t = tracing();
    const loop = loopWith(t.tracer, [
      { toolCalls: [{ id: "s1", name: "send", args: { to: "ana" } }] },
      { text: "sent" },
    ]);
    const paused = await loop.run("mail ana");
    expect(paused.status).toBe("needs_approval");
    const first = t.one("invoke_agent calc");
    expect(first.attributes["tollgate.run.status"]).toBe("needs_approval");
    const waiting = t.one("execute_tool send");
    expect(waiting.attributes).toMatchObject({
      "tollgate.gate.verdict": "needs-approval",
      "tollgate.run.status": "needs_approval",
    });

    const resumed = await loop.resume(paused.state, { s1: { approve: true } });
    expect(resumed.status).toBe("completed");
    const runs = t.named("invoke_agent calc");
    expect(runs).toHaveLength(2);
    const second = runs[1]!;
    expect(second.attributes).toMatchObject({
      "tollgate.run.resumed": true,
      "tollgate.run.status": "completed",
    });
    expect(second.links.map((link) => link.context.spanId)).toEqual([idOf(first)]);
    const approved = t.named("execute_tool send")[1]!;
    expect(parentOf(approved)).toBe(idOf(second));
    expect(approved.attributes).toMatchObject({
      "tollgate.gate.verdict": "allow",
      "tollgate.gate.by": "approval",
    });
  });

  it("each run span counts the tokens of its own model calls: a resumed run's, not the total since the run began", async () => {
    const t = tracing();
    const loop = loopWith(t.tracer, [
      { toolCalls: [{ id: "s1", name: "send", args: { to: "ana" } }], usage: USAGE },
      { text: "sent", usage: { inputTokens: 11, outputTokens: 2 } },
    ]);
    const paused = await loop.run("mail ana");
    const resumed = await loop.resume(paused.state, { s1: { approve: true } });
    expect(resumed.usage).toMatchObject({ inputTokens: 18, outputTokens: 5 });
    const [first, second] = t.named("invoke_agent calc");
    expect(first!.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(second!.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 2,
    });
  });
});

describe("otelListener: sub-runs", () => {
  it("a sub-agent's run span sits under its parent's execute_tool span, its spans under it", async () => {
    const t = tracing();
    const child = new AgentLoop({
      provider: scriptedProvider(
        [{ toolCalls: [{ id: "k1", name: "add", args: { a: 4, b: 4 } }] }, { text: "8" }],
        { model: "small" },
      ),
      tools: [add],
    });
    const parent = loopWith(
      t.tracer,
      [
        {
          toolCalls: [
            { id: "p1", name: "helper", args: { prompt: "4+4" } },
            { id: "p2", name: "add", args: { a: 1, b: 1 } },
          ],
        },
        { text: "8 and 2" },
      ],
      { tools: [add, child.asTool({ name: "helper", description: "Does sums" })] },
    );
    await parent.run("go");
    const top = t.one("invoke_agent calc");
    const helperCall = t.one("execute_tool helper");
    expect(parentOf(helperCall)).toBe(idOf(top));
    const sub = t.one("invoke_agent helper");
    expect(parentOf(sub)).toBe(idOf(helperCall));
    expect(sub.attributes["tollgate.run.status"]).toBe("completed");
    const subChats = t.named("chat small");
    expect(subChats.every((chat) => parentOf(chat) === idOf(sub))).toBe(true);
    const adds = t.named("execute_tool add");
    expect(
      adds.find((span) => span.attributes["gen_ai.tool.call.id"] === "k1")!.parentSpanContext
        ?.spanId,
    ).toBe(idOf(sub));
    expect(
      adds.find((span) => span.attributes["gen_ai.tool.call.id"] === "p2")!.parentSpanContext
        ?.spanId,
    ).toBe(idOf(top));
    expect(new Set(t.spans().map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it("a parent's run span counts its sub-runs' tokens, as the run's usage does", async () => {
    const t = tracing();
    const child = new AgentLoop({
      provider: scriptedProvider([{ text: "8", usage: { inputTokens: 5, outputTokens: 1 } }]),
    });
    const parent = loopWith(
      t.tracer,
      [
        { toolCalls: [{ id: "p1", name: "helper", args: { prompt: "4+4" } }], usage: USAGE },
        { text: "8", usage: USAGE },
      ],
      { tools: [child.asTool({ name: "helper", description: "Does sums" })] },
    );
    const result = await parent.run("go");
    expect(result.usage).toMatchObject({ inputTokens: 19, outputTokens: 7 });
    expect(t.one("invoke_agent calc").attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 19,
      "gen_ai.usage.output_tokens": 7,
    });
    expect(t.one("invoke_agent helper").attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 5,
      "gen_ai.usage.output_tokens": 1,
    });
  });

  it("a sub-agent that throws: its run span is ended with its parent's call, as an error", async () => {
    const t = tracing();
    const child = new AgentLoop({
      provider: scriptedProvider([{ error: new Error("child model down") }]),
      tools: [],
    });
    const parent = loopWith(
      t.tracer,
      [{ toolCalls: [{ id: "p1", name: "helper", args: { prompt: "x" } }] }, { text: "it failed" }],
      {
        tools: [child.asTool({ name: "helper", description: "Helps" })],
        onListenerError: () => {},
      },
    );
    await parent.run("go");
    const sub = t.one("invoke_agent helper");
    expect(sub.status.code).toBe(SpanStatusCode.ERROR);
    expect(parentOf(sub)).toBe(idOf(t.one("execute_tool helper")));
    expect(t.one("execute_tool helper").status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe("otelListener: fails closed, never breaks a run", () => {
  it("refuses a tracer without startSpan and unknown options, with a did-you-mean", () => {
    const { tracer } = tracing();
    expect(() => otelListener({} as Tracer)).toThrow(/expected an OpenTelemetry Tracer/);
    expect(() => otelListener(undefined as unknown as Tracer)).toThrow(TypeError);
    expect(() => otelListener(tracer, { recordContnet: true } as never)).toThrow(
      /did you mean `recordContent`/,
    );
    expect(() => otelListener(tracer, { recordContent: "yes" } as never)).toThrow(/true or false/);
    expect(() => otelListener(tracer, { agentName: "" })).toThrow(/non-empty/);
    expect(() => otelListener(tracer, null as never)).toThrow(TypeError);
  });

  it("a throwing tracer does not break the run: its errors go to onListenerError", async () => {
    const errors: unknown[] = [];
    const tracer = {
      startSpan: () => {
        throw new Error("exporter exploded");
      },
      startActiveSpan: () => {
        throw new Error("exporter exploded");
      },
    } as unknown as Tracer;
    const loop = loopWith(
      tracer,
      [{ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }, { text: "2" }],
      {
        onListenerError: (error) => errors.push(error),
      },
    );
    const result = await loop.run("1+1");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("2");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => (error as Error).message === "exporter exploded")).toBe(true);
  });

  it("uses the global tracer API too (a no-op tracer when none is registered)", async () => {
    const events: LoopEvent[] = [];
    const listener = otelListener(trace.getTracer("noop"));
    const loop = loopWith(trace.getTracer("noop"), [{ text: "hi" }], {
      onEvent: (event) => {
        events.push(event);
        listener(event);
      },
    });
    expect((await loop.run("hi")).status).toBe("completed");
    expect(events.at(-1)?.type).toBe("run-finish");
  });
});

describe("otelListener: a paused sub-agent", () => {
  it("pauses with its parent; on resume, its new run span sits under the parent's new call span, linked to the paused one", async () => {
    const t = tracing();
    const child = new AgentLoop({
      provider: scriptedProvider([
        { toolCalls: [{ id: "m1", name: "send", args: { to: "ana" } }] },
        { text: "mailed" },
      ]),
      tools: [send],
      trustState: true,
    });
    const parent = loopWith(
      t.tracer,
      [
        { toolCalls: [{ id: "p1", name: "mailer", args: { prompt: "mail ana" } }] },
        { text: "done" },
      ],
      { tools: [child.asTool({ name: "mailer", description: "Sends mail" })] },
    );
    const paused = await parent.run("go");
    expect(paused.status).toBe("needs_approval");
    const firstSub = t.one("invoke_agent mailer");
    expect(firstSub.attributes["tollgate.run.status"]).toBe("needs_approval");
    expect(parentOf(firstSub)).toBe(idOf(t.one("execute_tool mailer")));
    expect(t.spans().every((span) => span.ended)).toBe(true);

    const done = await parent.resume(paused.state, { m1: { approve: true } });
    expect(done.status).toBe("completed");
    const subs = t.named("invoke_agent mailer");
    expect(subs).toHaveLength(2);
    const secondSub = subs[1]!;
    const secondCall = t.named("execute_tool mailer")[1]!;
    const secondTop = t.named("invoke_agent calc")[1]!;
    expect(parentOf(secondCall)).toBe(idOf(secondTop));
    expect(parentOf(secondSub)).toBe(idOf(secondCall));
    expect(secondSub.links.map((link) => link.context.spanId)).toEqual([idOf(firstSub)]);
    expect(secondSub.attributes["tollgate.run.status"]).toBe("completed");
    const approved = t.named("execute_tool send")[1]!;
    expect(parentOf(approved)).toBe(idOf(secondSub));
  });
});

describe("handoffs", () => {
  it("a handoff is an event on the run's span, naming both agents; the target's model call is a chat span of the same run", async () => {
    const { tracer, one, named } = tracing();
    const billing = new AgentLoop({
      name: "billing",
      provider: scriptedProvider([{ text: "refunded" }], { model: "billing-model" }),
    });
    const triage = new AgentLoop({
      name: "triage",
      provider: scriptedProvider([{ toolCalls: [{ name: "transfer_to_billing", args: {} }] }]),
      handoffs: [billing],
      onEvent: otelListener(tracer),
    });
    const result = await triage.run("a refund, please");
    expect(result.agent).toBe("billing");
    const run = one("invoke_agent tollgate");
    const handoffs = run.events.filter((event) => event.name === "tollgate.handoff");
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]!.attributes).toMatchObject({
      "tollgate.handoff.from": "triage",
      "tollgate.handoff.to": "billing",
      "tollgate.step": 0,
    });
    const chats = named("chat billing-model");
    expect(chats.map(parentOf)).toEqual([idOf(run)]);
  });
});
