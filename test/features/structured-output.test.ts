import {
  AgentLoop,
  defineProvider,
  jsonSchema,
  type LoopEvent,
  type Message,
  OutputValidationError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parsePartialJson } from "../../src/output/partial-json.js";

const City = z.object({ city: z.string(), celsius: z.number() });
const oslo = { city: "Oslo", celsius: 21 };

const weather = tool({
  name: "get_weather",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, celsius: 21 }),
});

const final = (args: unknown, id?: string) => ({
  toolCalls: [{ name: "final_answer", args, ...(id === undefined ? {} : { id }) }],
});

const userTexts = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "user" ? [message.content] : []));

const resultsOf = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));

describe('output, mode "tool" (the default for a provider without native output)', () => {
  it("offers the final-answer tool in every step and completes with its args as output", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] },
      final(oslo),
    ]);
    const loop = new AgentLoop({ provider, tools: [weather], output: City });
    const result = await loop.run("Weather in Oslo?");
    expect(result.status).toBe("completed");
    if (result.status !== "completed") throw new Error("unreachable");
    expect(result.output).toEqual(oslo);
    for (const request of provider.requests) {
      expect(request.tools.map((spec) => spec.name)).toEqual(["get_weather", "final_answer"]);
      expect(request.toolChoice).toBe("required");
      expect(request.responseFormat).toBeUndefined();
    }
    const spec = provider.requests[0]!.tools[1]!;
    expect(spec.inputSchema).toMatchObject({
      type: "object",
      required: ["city", "celsius"],
    });
    // Every call still has exactly one result: the final answer's too.
    expect(resultsOf(result.messages).map((r) => r.toolName)).toEqual([
      "get_weather",
      "final_answer",
    ]);
  });

  it("takes a name and a description, and the schema's output (transforms) as output", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "answer", args: { n: "41" } }] }]);
    const loop = new AgentLoop({
      provider,
      output: {
        schema: z.object({ n: z.string().transform((s) => Number(s) + 1) }),
        name: "answer",
        description: "The answer.",
      },
    });
    const result = await loop.run("n?");
    expect(result.output).toEqual({ n: 42 });
    expect(provider.requests[0]!.tools[0]).toMatchObject({
      name: "answer",
      description: "The answer.",
    });
  });

  it("feeds an invalid final answer back with the failing path, and goes on", async () => {
    const provider = scriptedProvider([final({ city: "Oslo", celsius: "warm" }), final(oslo)]);
    const loop = new AgentLoop({ provider, output: City });
    const result = await loop.run("Weather?");
    expect(result.output).toEqual(oslo);
    const [first] = resultsOf(result.messages);
    expect(first!.isError).toBe(true);
    expect(String(first!.output)).toContain("celsius");
    expect(result.steps[0]!.calls[0]!.verdict).toBe("invalid");
  });

  it("past the loop's maxRetries, rejects with OutputValidationError carrying the transcript", async () => {
    const provider = scriptedProvider([final({ city: 1 }), final({ city: 2 }), final(oslo)]);
    const loop = new AgentLoop({ provider, output: City, maxRetries: 1 });
    const error = await loop.run("Weather?").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).message).toContain("maxRetries (1)");
    const messages = (error as OutputValidationError).messages!;
    expect(resultsOf(messages)).toHaveLength(2);
    expect(provider.remaining).toBe(1);
  });

  it("maxRetries 0: the first invalid final answer rejects", async () => {
    const provider = scriptedProvider([final({ city: 1 })]);
    const loop = new AgentLoop({ provider, output: City, maxRetries: 0 });
    await expect(loop.run("Weather?")).rejects.toBeInstanceOf(OutputValidationError);
  });

  it("a text answer is no final answer: the model is told to call the tool, counted as a failure", async () => {
    const provider = scriptedProvider([{ text: "It is 21 °C." }, final(oslo)]);
    const loop = new AgentLoop({ provider, output: City });
    const result = await loop.run("Weather?");
    expect(result.output).toEqual(oslo);
    expect(userTexts(result.messages)[1]).toContain('calling the tool "final_answer"');
    const failing = scriptedProvider([{ text: "a" }, { text: "b" }]);
    await expect(
      new AgentLoop({ provider: failing, output: City }).run("Weather?"),
    ).rejects.toBeInstanceOf(OutputValidationError);
  });

  it("the final-answer call passes the gate: hooks and the policy see it", async () => {
    const seen: string[] = [];
    const provider = scriptedProvider([final(oslo, "f1"), final(oslo, "f2")]);
    let first = true;
    const loop = new AgentLoop({
      provider,
      output: City,
      preToolCall: [
        (call) => {
          seen.push(call.name);
          if (first) {
            first = false;
            return { block: "not yet" };
          }
          return undefined;
        },
      ],
    });
    const result = await loop.run("Weather?");
    expect(seen).toEqual(["final_answer", "final_answer"]);
    expect(result.steps[0]!.calls[0]!.verdict).toBe("block");
    expect(result.output).toEqual(oslo);
  });

  it("other calls of the final step pass the gate and run as usual; then the run completes", async () => {
    let ran = 0;
    const counted = tool({
      name: "count",
      input: z.object({}),
      execute: () => ++ran,
    });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "count", args: {} },
          { name: "final_answer", args: oslo },
        ],
      },
    ]);
    const result = await new AgentLoop({ provider, tools: [counted], output: City }).run("go");
    expect(ran).toBe(1);
    expect(result.status).toBe("completed");
    expect(result.output).toEqual(oslo);
  });

  it("a final-answer name that is one of the loop's tools is a TypeError", () => {
    const provider = scriptedProvider([]);
    expect(
      () =>
        new AgentLoop({
          provider,
          tools: [weather],
          output: { schema: City, name: "get_weather" },
        }),
    ).toThrow(/name "get_weather" is the name of one of the loop's tools/);
  });

  it("the final-answer tool is offered even when prepareStep shows no tools", async () => {
    const provider = scriptedProvider([final(oslo)]);
    const loop = new AgentLoop({
      provider,
      tools: [weather],
      output: City,
      policy: { prepareStep: () => [] },
    });
    const result = await loop.run("go");
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["final_answer"]);
    expect(result.output).toEqual(oslo);
  });

  it("a final answer in a step that pauses completes the run on resume", async () => {
    const risky = tool({
      name: "risky",
      input: z.object({}),
      needsApproval: true,
      execute: () => "done",
    });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "risky", args: {} },
          { name: "final_answer", args: oslo },
        ],
      },
    ]);
    const loop = new AgentLoop({ provider, tools: [risky], output: City, allowReplay: true });
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    if (paused.status !== "needs_approval") throw new Error("unreachable");
    const { toolCallId, digest } = paused.pending[0]!;
    const result = await loop.resume(paused.state, { [toolCallId]: { approve: true, digest } });
    expect(result.status).toBe("completed");
    expect(result.output).toEqual(oslo);
  });
});

describe('output, mode "native"', () => {
  it("is the default for a provider that supports it: responseFormat is sent, the text is the answer", async () => {
    const provider = scriptedProvider([{ text: JSON.stringify(oslo) }], {
      supportsNativeOutput: true,
    });
    const loop = new AgentLoop({ provider, tools: [weather], output: City });
    const result = await loop.run("Weather?");
    expect(result.output).toEqual(oslo);
    const request = provider.requests[0]!;
    expect(request.responseFormat).toMatchObject({
      type: "json",
      name: "final_answer",
      // No tool to call in native mode: the description does not speak of one.
      description: "Your final answer.",
      schema: { type: "object", required: ["city", "celsius"] },
    });
    expect(request.tools.map((t) => t.name)).toEqual(["get_weather"]);
    expect(request.toolChoice).toBeUndefined();
  });

  it("asking for native on a provider without it is a TypeError that names the other modes", () => {
    const provider = scriptedProvider([]);
    expect(() => new AgentLoop({ provider, output: { schema: City, mode: "native" } })).toThrow(
      /does not declare supportsNativeOutput. Use mode "tool"/,
    );
  });

  it("an answer that fails the schema is fed back with its path; past maxRetries, OutputValidationError", async () => {
    const provider = scriptedProvider(
      [{ text: JSON.stringify({ city: "Oslo" }) }, { text: JSON.stringify(oslo) }],
      { supportsNativeOutput: true },
    );
    const result = await new AgentLoop({ provider, output: City }).run("Weather?");
    expect(result.output).toEqual(oslo);
    expect(userTexts(result.messages)[1]).toMatch(/does not match the schema: celsius: /);
    const bad = scriptedProvider([{ text: "{" }, { text: "[]" }], { supportsNativeOutput: true });
    const error = await new AgentLoop({ provider: bad, output: City })
      .run("Weather?")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).messages).toHaveLength(4);
  });

  it("a run's own output replaces the loop's, typed from it", async () => {
    const provider = scriptedProvider([{ text: '{"ok":true}' }], { supportsNativeOutput: true });
    const loop = new AgentLoop({ provider, output: City });
    const result = await loop.run("?", { output: z.object({ ok: z.boolean() }) });
    if (result.status !== "completed") throw new Error("not completed");
    const ok: boolean = result.output.ok;
    expect(ok).toBe(true);
    expect(provider.requests[0]!.responseFormat?.schema).toMatchObject({
      required: ["ok"],
    });
  });
});

describe('output, mode "prompted"', () => {
  it("puts the schema in the instructions and reads JSON from the text, a ```json fence tolerated", async () => {
    const provider = scriptedProvider([{ text: `\`\`\`json\n${JSON.stringify(oslo)}\n\`\`\`` }], {
      supportsNativeOutput: true,
    });
    const loop = new AgentLoop({
      provider,
      instructions: "Be brief.",
      output: { schema: City, mode: "prompted" },
    });
    const result = await loop.run("Weather?");
    expect(result.output).toEqual(oslo);
    const { system, responseFormat, tools } = provider.requests[0]!;
    expect(system).toMatch(/^Be brief\.\n\nGive your final answer as one JSON value/);
    expect(system).toContain('"required":["city","celsius"]');
    expect(responseFormat).toBeUndefined();
    expect(tools).toEqual([]);
  });

  it("a fenced block after a line of prose is read; two fenced blocks are not guessed between", async () => {
    const one = `Sure, here it is:\n\`\`\`json\n${JSON.stringify(oslo)}\n\`\`\`\nAnything else?`;
    const two = `\`\`\`json\n{"city":"A","celsius":1}\n\`\`\`\nor\n\`\`\`json\n${JSON.stringify(oslo)}\n\`\`\``;
    const provider = scriptedProvider([{ text: two }, { text: one }]);
    const loop = new AgentLoop({ provider, output: { schema: City, mode: "prompted" } });
    const result = await loop.run("Weather?");
    expect(userTexts(result.messages)[1]).toContain("your answer is not JSON");
    expect(result.output).toEqual(oslo);
  });

  it("text that is not JSON is fed back, counted against maxRetries", async () => {
    const provider = scriptedProvider([{ text: "It is warm." }, { text: JSON.stringify(oslo) }]);
    const loop = new AgentLoop({ provider, output: { schema: City, mode: "prompted" } });
    const result = await loop.run("Weather?");
    expect(userTexts(result.messages)[1]).toContain("your answer is not JSON");
    expect(result.output).toEqual(oslo);
  });

  it("accepts a JSON Schema through jsonSchema()", async () => {
    const provider = scriptedProvider([{ text: '{"n": "x"}' }, { text: '{"n": 3}' }]);
    const loop = new AgentLoop({
      provider,
      output: {
        schema: jsonSchema<{ n: number }>({
          type: "object",
          properties: { n: { type: "number" } },
          required: ["n"],
        }),
        mode: "prompted",
      },
    });
    const result = await loop.run("n?");
    expect(result.output).toEqual({ n: 3 });
    expect(userTexts(result.messages)[1]).toContain("n");
  });
});

describe("output options are checked", () => {
  const provider = scriptedProvider([]);
  it.each([
    [{ schema: City, mode: "json" }, /output.mode must be "tool", "native" or "prompted"/],
    [{ schema: City, name: "a b" }, /output.name must be 1–64/],
    [{ schema: City, strategy: "tool" }, /strategy/],
    [{ type: "object" }, /raw JSON Schema/],
  ])("%j", (output, message) => {
    expect(() => new AgentLoop({ provider, output: output as never })).toThrow(message);
  });

  it("a run's bad output rejects run()", async () => {
    await expect(
      new AgentLoop({ provider }).run("x", { output: { schema: City, mode: "native" } }),
    ).rejects.toThrow(/does not declare supportsNativeOutput/);
  });

  it("a provider built with defineProvider declares native output when told", () => {
    const custom = defineProvider({
      name: "custom",
      model: "m",
      supportsNativeOutput: true,
      generate: async () => ({
        parts: [],
        finishReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      }),
    });
    expect(custom.supportsNativeOutput).toBe(true);
    expect(() => new AgentLoop({ provider: custom, output: City })).not.toThrow();
  });
});

describe("stream(): output-delta events", () => {
  const deltas = (events: LoopEvent[]) =>
    events.flatMap((event) => (event.type === "output-delta" ? [event.output] : []));

  it("native: partial objects as the text streams, ending with the whole answer", async () => {
    const provider = scriptedProvider([{ text: JSON.stringify(oslo) }], {
      stream: true,
      chunkSize: 5,
      supportsNativeOutput: true,
    });
    const events: LoopEvent[] = [];
    for await (const event of new AgentLoop({ provider, output: City }).stream("?")) {
      events.push(event);
    }
    const partials = deltas(events);
    expect(partials.length).toBeGreaterThan(2);
    expect(partials[partials.length - 1]).toEqual(oslo);
    expect(partials).toContainEqual({ city: "Oslo" });
    expect(new Set(partials.map((p) => JSON.stringify(p))).size).toBe(partials.length);
  });

  it("tool: partial objects from the final-answer tool's args, not from other tools'", async () => {
    const provider = scriptedProvider(
      [{ toolCalls: [{ name: "get_weather", args: { city: "Bergen" } }] }, final(oslo)],
      { stream: true, chunkSize: 3 },
    );
    const events: LoopEvent[] = [];
    for await (const event of new AgentLoop({ provider, tools: [weather], output: City }).stream(
      "?",
    )) {
      events.push(event);
    }
    const partials = deltas(events);
    expect(partials.length).toBeGreaterThan(2);
    expect(partials.every((p) => (p as { city?: string }).city !== "Bergen")).toBe(true);
    expect(partials[partials.length - 1]).toEqual(oslo);
    const finish = events[events.length - 1]!;
    expect(finish.type === "run-finish" && finish.result.output).toEqual(oslo);
  });

  it("prompted: also for a provider with generate only (one burst)", async () => {
    const provider = scriptedProvider([{ text: JSON.stringify(oslo) }]);
    const events: LoopEvent[] = [];
    for await (const event of new AgentLoop({
      provider,
      output: { schema: City, mode: "prompted" },
    }).stream("?")) {
      events.push(event);
    }
    expect(deltas(events)).toEqual([oslo]);
  });
});

describe("parsePartialJson", () => {
  it.each([
    ['{"city": "Os', { city: "Os" }],
    ['{"city": "Oslo", "cel', { city: "Oslo" }],
    ['{"a": [1, 2', { a: [1, 2] }],
    ['{"a": tru', {}],
    ['{"a": "x\\', { a: "x" }],
    ['```json\n{"a": {"b": 1}, ', { a: { b: 1 } }],
    ['{"a": 1}} trailing', { a: 1 }],
    ["no json yet", undefined],
    ["[", []],
  ])("%s", (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });
});

describe("a final answer held for approval", () => {
  it("pauses the run; approving it on resume (by value, through JSON, on a new loop) completes with the output", async () => {
    const make = () =>
      new AgentLoop({
        provider: scriptedProvider([final(oslo, "f1")]),
        output: City,
        trustState: true,
        policy: {
          decideToolCall: ({ call }) =>
            call.name === "final_answer" ? "NEEDS_APPROVAL" : undefined,
        },
      });
    const paused = await make().run("Weather in Oslo?");
    expect(paused.status).toBe("needs_approval");
    if (paused.status !== "needs_approval") throw new Error("unreachable");
    expect(paused.pending.map((p) => [p.toolCallId, p.toolName, p.args])).toEqual([
      ["f1", "final_answer", oslo],
    ]);
    const state = JSON.parse(JSON.stringify(paused.state));
    const done = await make().resume(state, { f1: { approve: true } });
    expect(done.status).toBe("completed");
    if (done.status !== "completed") throw new Error("unreachable");
    expect(done.output).toEqual(oslo);
  });

  it("refusing it feeds the refusal back; the run goes on to another answer", async () => {
    const bergen = { city: "Bergen", celsius: 12 };
    const loop = new AgentLoop({
      provider: scriptedProvider([final(oslo, "f1"), final(bergen, "f2")]),
      output: { schema: City, mode: "tool" },
      trustState: true,
      policy: {
        decideToolCall: ({ call }) => (call.id === "f1" ? "NEEDS_APPROVAL" : undefined),
      },
    });
    const paused = await loop.run("Weather somewhere?");
    const result = await loop.resume(paused.state, { f1: { approve: false, reason: "not yet" } });
    expect(result.status).toBe("completed");
    if (result.status !== "completed") throw new Error("unreachable");
    expect(result.output).toEqual(bergen);
    expect(resultsOf(result.messages)[0]).toMatchObject({
      toolName: "final_answer",
      output: "the call to final_answer was refused by a human: not yet",
      isError: true,
    });
  });
});

describe("resuming with another output schema", () => {
  it("a final answer the paused step took must fit the resume's schema; nothing runs, and the state stays resumable", async () => {
    const ran: string[] = [];
    const publish = tool({
      name: "publish",
      input: z.object({}),
      needsApproval: true,
      execute: () => {
        ran.push("publish");
        return "published";
      },
    });
    const A = z.object({ a: z.string() });
    const loop = new AgentLoop({
      provider: scriptedProvider([
        {
          toolCalls: [
            { name: "publish", args: {}, id: "p1" },
            { name: "final_answer", args: { a: "z" }, id: "f1" },
          ],
        },
      ]),
      tools: [publish],
      output: A,
      trustState: true,
    });
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const state = JSON.parse(JSON.stringify(paused.state));
    await expect(
      loop.resume(state, { p1: { approve: true } }, { output: z.object({ b: z.number() }) }),
    ).rejects.toThrow(
      /^the paused step already took a final answer that the output schema of this resume rejects \(.*b.*\); resume with the output the run was started with$/,
    );
    expect(ran).toEqual([]);
    const done = await loop.resume(state, { p1: { approve: true } });
    expect(ran).toEqual(["publish"]);
    expect(done.status === "completed" && done.output).toEqual({ a: "z" });
  });
});

describe("a bad output option says what is wrong with the output, as given", () => {
  const provider = scriptedProvider([]);
  it.each([
    [z.string(), /^AgentLoop: output schema: the output schema must describe an object/],
    [
      { schema: City, mode: "json" },
      'AgentLoop: output.mode must be "tool", "native" or "prompted", got the string "json"',
    ],
    [
      { schema: City, name: "a b" },
      'output.name must be 1–64 letters, digits, "_" or "-", got the string "a b"',
    ],
  ])("%#", (output, message) => {
    expect(() => new AgentLoop({ provider, output: output as never })).toThrow(message);
  });
});
