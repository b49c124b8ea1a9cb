import {
  AgentLoop,
  type AgentLoopOptions,
  defineProvider,
  type LoopEvent,
  type ModelRequest,
  type ModelResponse,
  type Provider,
  type RepairInfo,
  tool,
} from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * `repairToolCall` gets the step's request as the model got it — messages, instructions,
 * tools, provider — so a repair can ask a model (issue 29 §2, the AI SDK's re-ask strategy);
 * the repaired call still passes the whole gate, and the repair's model call is not the run's.
 */

type Turn = { text: string } | { call: { name: string; args: string } };

/**
 * The oracle: a provider that keeps a deep copy of every request it gets, exactly as it got it,
 * and answers from a script (its own, not tollgate's fakes).
 */
function recordingProvider(turns: Turn[], name = "recording") {
  const received: ModelRequest[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  let id = 0;
  const provider: Provider = {
    name,
    model: `${name}-1`,
    generate: async (request, options) => {
      received.push(structuredClone(request));
      signals.push(options.signal);
      const turn = turns.shift();
      if (!turn) throw new Error(`${name}: no turn left`);
      const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
      const response: ModelResponse =
        "text" in turn
          ? { parts: [{ type: "text", text: turn.text }], finishReason: "stop", usage }
          : {
              parts: [{ type: "tool-call", id: `c${++id}`, ...turn.call }],
              finishReason: "tool-calls",
              usage,
            };
      return response;
    },
  };
  return { provider, received, signals };
}

const ran: string[] = [];
const send = tool({
  name: "send",
  description: "Send a message",
  input: z.object({ to: z.string().email(), body: z.string() }),
  execute: ({ to }) => {
    ran.push(`send ${to}`);
    return `sent to ${to}`;
  },
});
const lookup = tool({
  name: "lookup",
  description: "Look someone up",
  input: z.object({ who: z.string() }),
  execute: ({ who }) => `${who}@example.com`,
});

/** The repair of the AI SDK's docs: re-ask the step's model with the error, take its new call. */
const reAsk = async (info: RepairInfo) => {
  const response = await info.provider.generate({
    ...(info.instructions === undefined ? {} : { system: info.instructions }),
    tools: [...info.tools],
    messages: [
      ...info.messages,
      { role: "assistant", parts: [{ type: "tool-call", ...info.call, args: info.call.rawArgs }] },
      {
        role: "tool",
        results: [
          { toolCallId: info.call.id, toolName: info.call.name, output: info.error, isError: true },
        ],
      },
    ],
    toolChoice: { name: info.call.name },
  });
  const again = response.parts.find((part) => part.type === "tool-call");
  return again?.type === "tool-call" ? JSON.parse(again.args) : undefined;
};

const bad = { call: { name: "send", args: '{"to": "bob", "body": "hi"}' } }; // not an email
const fixed = { call: { name: "send", args: '{"to": "bob@example.com", "body": "hi"}' } };

function loopWith(turns: Turn[], options: Partial<AgentLoopOptions> = {}) {
  const recording = recordingProvider(turns);
  const events: LoopEvent[] = [];
  const loop = new AgentLoop({
    provider: recording.provider,
    tools: [send, lookup],
    instructions: "You send messages.",
    repairToolCall: reAsk,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { ...recording, loop, events };
}

describe("repairToolCall asks a model", () => {
  it("re-asks the step's provider with the messages and the error; the fixed args run", async () => {
    ran.length = 0;
    const a = loopWith([bad, fixed, { text: "sent" }]);
    const result = await a.loop.run("Tell bob hi");
    expect(result.status).toBe("completed");
    expect(ran).toEqual(["send bob@example.com"]);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "allow",
      args: { to: "bob@example.com", body: "hi" },
      repairedFrom: bad.call.args,
    });
    // The repair's request: what the step sent, plus the failed call and its error.
    const repairRequest = a.received[1]!;
    expect(repairRequest.messages.slice(0, 1)).toEqual(a.received[0]!.messages);
    expect(repairRequest.messages[2]).toMatchObject({
      role: "tool",
      results: [{ isError: true, output: expect.stringMatching(/to/) }],
    });
    expect(repairRequest.toolChoice).toEqual({ name: "send" });
  });

  it("the repair's model call is not the run's: not in its usage, steps, events or limits", async () => {
    const a = loopWith([bad, fixed, { text: "sent" }], { limits: { modelCalls: 2 } });
    const result = await a.loop.run("Tell bob hi");
    expect(a.received).toHaveLength(3); // step 0, the repair, step 1
    expect(result.status).toBe("completed"); // two model calls of the run, within the limit
    expect(result.steps).toHaveLength(2);
    expect(result.usage.totalTokens).toBe(220);
    expect(a.events.filter((event) => event.type === "model-response")).toHaveLength(2);
    expect(a.events.filter((event) => event.type === "step-start")).toHaveLength(2);
  });

  it("sees the messages, instructions and tools the model was sent, after prepareStep; and the step's provider", async () => {
    const seen: RepairInfo[] = [];
    const steered = recordingProvider([bad], "steered");
    const a = loopWith([{ call: { name: "lookup", args: '{"who": "bob"}' } }, { text: "done" }], {
      repairToolCall: (info) => {
        seen.push(info);
        return undefined;
      },
      maxRetries: 3,
      policy: {
        prepareStep: ({ stepIndex }) =>
          stepIndex === 1
            ? {
                tools: ["send"],
                instructions: "Now send it.",
                provider: steered.provider,
              }
            : ["send", "lookup"],
      },
    });
    const result = await a.loop.run("Tell bob hi");
    expect(result.status).toBe("completed");
    expect(seen).toHaveLength(1);
    const info = seen[0]!;
    const sent = steered.received[0]!; // the oracle: the step-1 request as its provider got it
    expect(info.step).toBe(1);
    expect(info.messages).toEqual(sent.messages);
    expect(info.messages).toHaveLength(3); // the prompt, step 0's call and its result
    expect(info.instructions).toBe("Now send it.");
    expect(info.instructions).toBe(sent.system);
    expect(info.tools).toEqual(sent.tools);
    expect(info.tools.map((spec) => spec.name)).toEqual(["send"]);
    expect(info.inputSchema).toEqual(sent.tools[0]!.inputSchema);
    expect(info.provider.name).toBe("steered");
    expect(info.provider.model).toBe("steered-1");
    expect(info.runId).toBe(result.state.runId);
    expect(info.call).toEqual({ id: "c1", name: "send", rawArgs: bad.call.args });
  });

  it("sees the messages as a preModelCall hook redacted them: what the provider got, not the transcript", async () => {
    const seen: RepairInfo[] = [];
    const a = loopWith([bad, { text: "done" }], {
      preModelCall: [
        ({ messages }) => ({
          messages: messages.map((message) =>
            message.role === "user" ? { ...message, content: "[redacted]" } : message,
          ),
        }),
      ],
      repairToolCall: (info) => {
        seen.push(info);
        return undefined;
      },
    });
    const result = await a.loop.run("my card is 4242");
    expect(a.received[0]!.messages).toEqual([{ role: "user", content: "[redacted]" }]);
    expect(seen[0]!.messages).toEqual(a.received[0]!.messages);
    expect(result.messages[0]).toEqual({ role: "user", content: "my card is 4242" });
  });

  it("gets the loop's deps and the run's, and a provider whose calls default to the run's signal", async () => {
    const seen: RepairInfo<{ user: string }>[] = [];
    const recording = recordingProvider([bad, { text: "unused" }, { text: "done" }]);
    const loop = new AgentLoop<{ user: string }>({
      provider: recording.provider,
      tools: [send],
      deps: { user: "loop" },
      repairToolCall: async (info) => {
        seen.push(info);
        await info.provider.generate({ messages: [...info.messages], tools: [] });
        return undefined;
      },
    });
    await loop.run("go", { deps: { user: "run" } });
    expect(seen[0]!.deps).toEqual({ user: "run" });
    expect(recording.signals[1]).toBeInstanceOf(AbortSignal);
    expect(recording.signals[1]).toBe(seen[0]!.signal);
    expect(seen[0]!.signal.aborted).toBe(false);
  });

  it("is frozen: the info, its messages, tools and provider cannot be changed", async () => {
    const steered: Provider = { name: "other", model: "x", generate: async () => ({}) as never };
    const errors: string[] = [];
    const attempt = (change: () => void) => {
      try {
        change();
        errors.push("changed");
      } catch (error) {
        errors.push(error instanceof TypeError ? "TypeError" : String(error));
      }
    };
    const a = loopWith([bad, { text: "done" }], {
      repairToolCall: (info) => {
        const open = info as unknown as Record<string, unknown>;
        attempt(() => {
          open.provider = steered;
        });
        attempt(() => {
          (info.provider as { generate: unknown }).generate = steered.generate;
        });
        attempt(() => (info.messages as unknown[]).push({ role: "user", content: "x" }));
        attempt(() => {
          (info.messages[0] as { content: string }).content = "changed";
        });
        attempt(() => (info.tools as unknown[]).pop());
        attempt(() => {
          (info.tools[0]!.inputSchema as Record<string, unknown>).type = "string";
        });
        attempt(() => {
          (info.call as { rawArgs: string }).rawArgs = "{}";
        });
        // Read twice, the same copy.
        expect(info.messages).toBe(info.messages);
        expect(info.tools).toBe(info.tools);
        return undefined;
      },
    });
    const result = await a.loop.run("Tell bob hi");
    expect(errors).toEqual(Array(7).fill("TypeError"));
    expect(result.messages[0]).toEqual({ role: "user", content: "Tell bob hi" });
    expect(a.received[1]!.tools.map((spec) => spec.name)).toEqual(["send", "lookup"]);
    expect(a.received[1]!.tools[0]!.inputSchema.type).toBe("object");
  });

  it("a provider without stream gives no stream; one with stream gives it bound", async () => {
    const seen: RepairInfo[] = [];
    const a = loopWith([bad, { text: "done" }], {
      repairToolCall: (info) => {
        seen.push(info);
        return undefined;
      },
    });
    await a.loop.run("go");
    expect(seen[0]!.provider.stream).toBeUndefined();
    expect(Object.isFrozen(seen[0]!.provider)).toBe(true);

    const streaming = recordingProvider([bad, { text: "fixed" }, { text: "done" }]);
    const parts: string[] = [];
    const loop = new AgentLoop({
      provider: defineProvider(streaming.provider),
      tools: [send],
      repairToolCall: async ({ provider, messages }) => {
        for await (const part of provider.stream!({ messages: [...messages], tools: [] })) {
          parts.push(part.type);
        }
        return undefined;
      },
    });
    await loop.run("go");
    expect(parts).toContain("text-delta");
    expect(streaming.received).toHaveLength(3);
  });
});

describe("a repaired call still passes the whole gate", () => {
  it("a hook that blocks the repaired args: the call never runs", async () => {
    ran.length = 0;
    const hookSaw: unknown[] = [];
    const a = loopWith([bad, fixed, { text: "done" }], {
      preToolCall: [
        (call) => {
          hookSaw.push(call.args);
          return { block: "no sending" };
        },
      ],
    });
    const result = await a.loop.run("go");
    expect(ran).toEqual([]);
    expect(hookSaw).toEqual([{ to: "bob@example.com", body: "hi" }]);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      verdict: "block",
      by: "hook:0",
      repairedFrom: bad.call.args,
    });
  });

  it("a policy that denies the repaired args: the call never runs", async () => {
    ran.length = 0;
    const a = loopWith([bad, fixed, { text: "done" }], {
      policy: { decideToolCall: () => ({ decision: "DENY", reason: "not today" }) },
    });
    const result = await a.loop.run("go");
    expect(ran).toEqual([]);
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "deny", by: "policy" });
  });

  it("a model's fix the schema rejects leaves the call invalid", async () => {
    ran.length = 0;
    const a = loopWith([bad, bad, { text: "done" }], { maxRetries: 2 });
    const result = await a.loop.run("go");
    expect(ran).toEqual([]);
    expect(result.steps[0]!.calls[0]).toMatchObject({ verdict: "invalid", by: "schema" });
  });
});
