import {
  AgentLoop,
  type LoopEvent,
  ModelRefusalError,
  TollgateError,
  ToolRetriesExceededError,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * DESIGN §11 "Refusals": a refusal (finish reason "content-filter") is not an answer: with
 * structured output it ends the run with `ModelRefusalError`, carrying the transcript, without a
 * re-prompt. And the one rule for tool calls of a response the provider cut (`length`,
 * `content-filter`): none runs; each gets an error result "not run: the response was cut",
 * verdict "invalid" by "default" (counted against its tool's retries), and the run goes on.
 */

const City = z.object({ city: z.string(), celsius: z.number() });

describe("with structured output, a refusal ends the run", () => {
  it.each(["native", "prompted", "tool"] as const)(
    'in "%s" mode: ModelRefusalError with the words and the transcript, after one model call',
    async (mode) => {
      const provider = scriptedProvider(
        [{ text: "I can't help with that.", finishReason: "content-filter" }],
        { supportsNativeOutput: mode === "native" },
      );
      const loop = new AgentLoop({ provider, output: { schema: City, mode } });
      const error = await loop.run("Weather in Oslo").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelRefusalError);
      expect(error).toBeInstanceOf(TollgateError);
      const refusal = error as ModelRefusalError;
      expect(refusal.name).toBe("ModelRefusalError");
      expect(refusal.finishReason).toBe("content-filter");
      expect(refusal.refusal).toBe("I can't help with that.");
      expect(refusal.message).toContain("refused");
      expect(refusal.message).not.toContain("JSON (");
      expect(refusal.messages).toEqual([
        { role: "user", content: "Weather in Oslo" },
        { role: "assistant", parts: [{ type: "text", text: "I can't help with that." }] },
      ]);
      expect(provider.requests).toHaveLength(1);
    },
  );

  it('a final-answer call in a refused response is not taken ("tool" mode); its call gets a result', async () => {
    const provider = scriptedProvider([
      {
        toolCalls: [{ id: "f1", name: "final_answer", args: { city: "Oslo", celsius: 21 } }],
        finishReason: "content-filter",
      },
    ]);
    const loop = new AgentLoop({ provider, output: { schema: City, mode: "tool" } });
    const error = (await loop
      .run("Weather")
      .catch((caught: unknown) => caught)) as ModelRefusalError;
    expect(error).toBeInstanceOf(ModelRefusalError);
    expect(error.refusal).toBeUndefined();
    const last = error.messages?.at(-1);
    expect(last?.role).toBe("tool");
    expect(last?.role === "tool" && last.results[0]).toMatchObject({
      toolCallId: "f1",
      isError: true,
    });
  });

  it("without structured output a refusal is an answer like any other: status completed", async () => {
    const provider = scriptedProvider([{ text: "I can't help.", finishReason: "content-filter" }]);
    const result = await new AgentLoop({ provider }).run("go");
    expect(result).toMatchObject({ status: "completed", text: "I can't help." });
    expect(result.finishReason).toBe("content-filter");
    // The rule that is new: structured output turns the same response into an error.
    const strict = scriptedProvider([{ text: "I can't help.", finishReason: "content-filter" }]);
    await expect(
      new AgentLoop({ provider: strict, output: { schema: City, mode: "prompted" } }).run("go"),
    ).rejects.toBeInstanceOf(ModelRefusalError);
  });
});

describe("tool calls of a response the provider cut never run", () => {
  function pay() {
    const paid: number[] = [];
    const hookSaw: unknown[] = [];
    const payTool = tool({
      name: "pay",
      description: "Pays an amount",
      input: z.object({ amount: z.number() }),
      execute: ({ amount }) => {
        paid.push(amount);
        return `paid ${amount}`;
      },
    });
    return { paid, hookSaw, payTool };
  }

  it.each(["length", "content-filter"] as const)(
    'cut by "%s": complete args still do not run; the model reads why, and the run goes on',
    async (finishReason) => {
      const { paid, hookSaw, payTool } = pay();
      const provider = scriptedProvider([
        { toolCalls: [{ id: "c1", name: "pay", args: { amount: 10 } }], finishReason },
        { toolCalls: [{ id: "c2", name: "pay", args: { amount: 10 } }] },
        { text: "Paid." },
      ]);
      const events: LoopEvent[] = [];
      const loop = new AgentLoop({
        provider,
        tools: [payTool],
        maxRetries: 1,
        preToolCall: [(call) => void hookSaw.push(call.toolCallId)],
        onEvent: (event) => events.push(event),
      });
      const result = await loop.run("Pay 10");
      expect(paid).toEqual([10]); // only the second, whole response's call ran
      expect(hookSaw).toEqual(["c2"]); // the cut call never reached the gate
      expect(result.status).toBe("completed");
      const cut = result.steps[0]!.calls[0]!;
      expect(cut).toMatchObject({ toolCallId: "c1", verdict: "invalid", by: "default" });
      expect(cut.reason).toContain(`the response was cut (finish reason "${finishReason}")`);
      expect(cut.result).toMatchObject({ isError: true });
      expect(String(cut.result?.output)).toMatch(/^not run: the response was cut/);
      // The model is told, in the transcript sent with the next request.
      const told = provider.requests[1]!.messages.at(-1);
      expect(told?.role === "tool" && told.results[0]?.output).toBe(cut.result?.output);
      const decision = events.find(
        (event) => event.type === "tool-decision" && event.toolCallId === "c1",
      );
      expect(decision).toMatchObject({ verdict: "invalid", by: "default" });
      const results = events.filter(
        (event) => event.type === "tool-result" && event.toolCallId === "c1",
      );
      expect(results).toHaveLength(1);
    },
  );

  it("a cut call counts as a failure of its tool: cut again and again ends with ToolRetriesExceededError", async () => {
    const { paid, payTool } = pay();
    const cutTurn = {
      toolCalls: [{ name: "pay", args: { amount: 10 } }],
      finishReason: "length" as const,
    };
    const provider = scriptedProvider([cutTurn, cutTurn, cutTurn]);
    const loop = new AgentLoop({ provider, tools: [payTool] });
    const error = await loop.run("Pay 10").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolRetriesExceededError);
    expect((error as Error).message).toContain("the response was cut");
    expect(paid).toEqual([]);
    expect(provider.requests).toHaveLength(2);
  });

  it("every call of the cut response is held back; one to a tool that is not callable is still 'not available'", async () => {
    const { paid, payTool } = pay();
    const provider = scriptedProvider([
      {
        toolCalls: [
          { id: "a", name: "pay", args: { amount: 1 } },
          { id: "b", name: "pay", args: { amount: 2 } },
          { id: "c", name: "refund", args: {} },
        ],
        finishReason: "content-filter",
      },
      { text: "Stopped." },
    ]);
    // The cut is one failure of each tool it names, however many calls: with the default
    // maxRetries (1) the run goes on, and the model is asked again.
    const loop = new AgentLoop({ provider, tools: [payTool] });
    const result = await loop.run("Pay");
    expect(result.status).toBe("completed");
    expect(provider.requests).toHaveLength(2);
    expect(paid).toEqual([]);
    expect(result.steps[0]!.calls.map(({ verdict }) => verdict)).toEqual([
      "invalid",
      "invalid",
      "unavailable",
    ]);
  });
});
