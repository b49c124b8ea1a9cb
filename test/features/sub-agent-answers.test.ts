import { AgentLoop, type AgentLoopOptions, hasToolCall, stepCountIs, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Sub-agents hand their answer up (DESIGN §11 "Sub-agents answer"): the parent's call output is
 * the sub-run's structured output as JSON text when it has one (every output mode), else its
 * final text, else (a tool ended it without text) that tool's output. `maxSteps` and `stopWhen`
 * bound a sub-run alike: both answer with what it has.
 */

const City = z.object({ city: z.string(), celsius: z.number() });
const OSLO = { city: "Oslo", celsius: 21 };

/**
 * Runs a parent whose model calls the sub-agent once and then answers; returns the output the
 * parent's call to the sub-agent got, and whether it was an error result.
 */
async function parentReads(
  subTurns: ScriptedTurn[],
  subOptions: Partial<AgentLoopOptions> = {},
  native = false,
) {
  const sub = new AgentLoop({
    provider: scriptedProvider(subTurns, native ? { supportsNativeOutput: true } : {}),
    ...subOptions,
  });
  const parent = new AgentLoop({
    provider: scriptedProvider([
      { toolCalls: [{ id: "ask-1", name: "weather_agent", args: { prompt: "Oslo?" } }] },
      { text: "done" },
    ]),
    tools: [sub.asTool({ name: "weather_agent", description: "Finds the weather" })],
  });
  const result = await parent.run("What is it like in Oslo?");
  expect(result.status).toBe("completed");
  const call = result.steps[0]!.calls[0]!;
  return { output: call.result!.output, isError: call.result!.isError };
}

describe("a sub-agent with structured output hands up its output as JSON text", () => {
  it('in "tool" mode, where its final text is "" (the answer is the final-answer call)', async () => {
    const read = await parentReads([{ toolCalls: [{ name: "final_answer", args: OSLO }] }], {
      output: { schema: City, mode: "tool" },
    });
    expect(read).toEqual({ output: JSON.stringify(OSLO), isError: false });
  });

  it('in "native" mode: the output, not the model\'s text around it', async () => {
    const fenced = `Here it is:\n\`\`\`json\n${JSON.stringify(OSLO, null, 2)}\n\`\`\``;
    const read = await parentReads([{ text: fenced }], { output: City }, true);
    expect(read).toEqual({ output: JSON.stringify(OSLO), isError: false });
  });

  it('in "prompted" mode, after the schema\'s transform', async () => {
    const Shouted = City.transform(({ city, celsius }) => ({ city: city.toUpperCase(), celsius }));
    const read = await parentReads([{ text: JSON.stringify(OSLO) }], {
      output: { schema: Shouted, mode: "prompted" },
    });
    expect(read.output).toBe('{"city":"OSLO","celsius":21}');
  });

  it("an output JSON cannot carry is the call's failure, saying so", async () => {
    const Big = z.object({ n: z.number() }).transform(({ n }) => ({ n: BigInt(n) }));
    const read = await parentReads([{ text: '{"n":1}' }], {
      output: { schema: Big, mode: "prompted" },
    });
    expect(read.isError).toBe(true);
    expect(read.output).toContain("cannot be written as JSON text");
  });
});

describe("a sub-agent that a tool ended hands up that tool's output", () => {
  const finish = tool({
    name: "finish",
    description: "Hands in the report",
    input: z.object({ report: z.string() }),
    execute: ({ report }) => `report: ${report}`,
  });
  const lookup = tool({
    name: "lookup",
    description: "Looks the weather up",
    input: z.object({ city: z.string() }),
    execute: ({ city }) => ({ city, celsius: 21 }),
  });

  it("a string output as it is, when the ending step has no text (text comes first)", async () => {
    const read = await parentReads(
      [{ toolCalls: [{ name: "finish", args: { report: "sunny" } }] }],
      { tools: [finish], policy: { endsRun: ({ call }) => call.name === "finish" } },
    );
    expect(read).toEqual({ output: "report: sunny", isError: false });
    // Text the model wrote with the ending call is its final text, which comes first.
    const withText = await parentReads(
      [{ text: "Handing it in.", toolCalls: [{ name: "finish", args: { report: "sunny" } }] }],
      { tools: [finish], policy: { endsRun: () => true } },
    );
    expect(withText.output).toBe("Handing it in.");
  });

  it("any other output as its JSON text", async () => {
    const read = await parentReads([{ toolCalls: [{ name: "lookup", args: { city: "Oslo" } }] }], {
      tools: [lookup],
      policy: { endsRun: () => true },
    });
    expect(read).toEqual({ output: JSON.stringify(OSLO), isError: false });
  });
});

describe("maxSteps and stopWhen bound a sub-agent alike", () => {
  const lookup = tool({
    name: "lookup",
    description: "Looks the weather up",
    input: z.object({ city: z.string() }),
    execute: () => "21 °C",
  });
  const turns: ScriptedTurn[] = [
    { text: "Looking it up.", toolCalls: [{ name: "lookup", args: { city: "Oslo" } }] },
  ];

  it("both answer with the sub-run's text; a hook's stop is still the call's failure", async () => {
    const byMaxSteps = await parentReads(turns, { tools: [lookup], maxSteps: 1 });
    const byStepCount = await parentReads(turns, { tools: [lookup], stopWhen: [stepCountIs(1)] });
    const byToolCall = await parentReads(turns, {
      tools: [lookup],
      stopWhen: [hasToolCall("lookup")],
    });
    expect(byMaxSteps).toEqual({ output: "Looking it up.", isError: false });
    expect(byStepCount).toEqual(byMaxSteps);
    expect(byToolCall).toEqual(byMaxSteps);
    const stoppedByHook = await parentReads(turns, {
      tools: [lookup],
      preToolCall: [() => ({ stop: true, stopReason: "out of scope" })],
    });
    expect(stoppedByHook).toEqual({
      output: "sub-agent weather_agent was stopped: out of scope",
      isError: true,
    });
  });
});
