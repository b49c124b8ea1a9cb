import fc from "fast-check";
import { AgentLoop, hasToolCall, type StopContext, stepCountIs, Toolset, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * `stopWhen`'s built-in conditions say what they mean (issue 29 §3): `hasToolCall` takes
 * several names and stops after a step that called any of them; a name no tool of the loop has
 * (a typo that would never fire) is a `TypeError` at `new AgentLoop()` and at `run()`,
 * `stream()`, `resume()`, with a did-you-mean.
 */

const toolNamed = (name: string, needsApproval = false) =>
  tool({
    name,
    input: z.object({ n: z.number() }),
    needsApproval,
    execute: ({ n }) => `${name} ${n}`,
  });
const search = toolNamed("search");
const submit = toolNamed("submit");
const giveUp = toolNamed("give_up");
const ask = toolNamed("ask", true);
const tools = [search, submit, giveUp, ask];

const call = (name: string, n = 1) => ({ toolCalls: [{ name, args: { n }, id: `${name}${n}` }] });

function loopOf(turns: readonly ScriptedTurn[], options: Record<string, unknown> = {}) {
  return new AgentLoop({ provider: scriptedProvider(turns), tools, trustState: true, ...options });
}

describe("hasToolCall(...names)", () => {
  it("stops after a step in which the model called any of the names (the second one too)", async () => {
    const loop = loopOf([call("search"), call("give_up"), call("search", 2), { text: "done" }], {
      stopWhen: [hasToolCall("submit", "give_up")],
    });
    const result = await loop.run("go");
    expect(result.status).toBe("stopped_by_condition");
    expect(result.steps.map((step) => step.calls.map((c) => c.toolName))).toEqual([
      ["search"],
      ["give_up"],
    ]);
    expect(result.stoppedBy).toEqual({ index: 0, name: 'hasToolCall("submit", "give_up")' });
  });

  it("does not stop on a step that called none of them", async () => {
    const loop = loopOf([call("search"), call("search", 2), { text: "done" }], {
      stopWhen: [hasToolCall("submit", "give_up")],
    });
    const result = await loop.run("go");
    expect(result.status).toBe("completed");
    expect(result.steps).toHaveLength(3);
  });

  it("matches the oracle: the run stops after the first step that calls a wanted name", async () => {
    const names = ["search", "submit", "give_up"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
        async (script, wanted) => {
          const turns = [...script.map((name, i) => call(name, i)), { text: "done" }];
          const loop = loopOf(turns, {
            stopWhen: [hasToolCall(...(wanted as [string, ...string[]]))],
          });
          const result = await loop.run("go");
          // The oracle: the script itself, not the loop's records.
          const first = script.findIndex((name) => wanted.includes(name));
          if (first === -1) {
            expect(result.status).toBe("completed");
            expect(result.steps).toHaveLength(script.length + 1);
          } else {
            expect(result.status).toBe("stopped_by_condition");
            expect(result.steps).toHaveLength(first + 1);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("without a name, or with a name that is no string, is a TypeError as before", () => {
    expect(() => (hasToolCall as () => unknown)()).toThrow(/hasToolCall\(\): give a tool name/);
    expect(() => hasToolCall("")).toThrow(TypeError);
    expect(() => hasToolCall("search", 5 as never)).toThrow(
      /hasToolCall\(\): give a tool name \(argument 2\), got 5/,
    );
    expect(() => hasToolCall("search", "")).toThrow(/argument 2\), got an empty string/);
  });

  it("is a plain function: its names do not show as a property", () => {
    const condition = hasToolCall("search");
    expect(typeof condition).toBe("function");
    expect(Object.keys(condition)).toEqual([]);
    expect(condition.name).toBe('hasToolCall("search")');
  });
});

describe("a stopWhen name no tool of the loop has", () => {
  it("is a TypeError at new AgentLoop(), naming the condition, the name and a did-you-mean", () => {
    const build = () => loopOf([], { stopWhen: [stepCountIs(3), hasToolCall("submit", "gve_up")] });
    expect(build).toThrow(TypeError);
    expect(build).toThrow(/AgentLoop: `stopWhen\[1\]` hasToolCall\("submit", "gve_up"\)/);
    expect(build).toThrow(/a tool named "gve_up", which no tool of the loop has/);
    expect(build).toThrow(/did you mean "give_up"\?/);
  });

  it("with no near name lists the tools; a loop without tools says so", () => {
    expect(() => loopOf([], { stopWhen: [hasToolCall("weather")] })).toThrow(
      /the tools are "search", "submit", "give_up", "ask"/,
    );
    expect(
      () => new AgentLoop({ provider: scriptedProvider([]), stopWhen: [hasToolCall("search")] }),
    ).toThrow(/the loop has no tools/);
  });

  it("reads the tools in every form the loop takes: a Toolset, a { name: tool } record", () => {
    const provider = scriptedProvider([]);
    const fromSet = () =>
      new AgentLoop({ provider, tools: Toolset.from([search]), stopWhen: [hasToolCall("serch")] });
    expect(fromSet).toThrow(/did you mean "search"/);
    expect(
      () => new AgentLoop({ provider, tools: { search }, stopWhen: [hasToolCall("search")] }),
    ).not.toThrow();
  });

  it("is a TypeError at run() and stream() for a run's stopWhen, and nothing runs", async () => {
    const provider = scriptedProvider([call("search")]);
    const loop = new AgentLoop({ provider, tools });
    const stopWhen = [hasToolCall("Submit")];
    await expect(loop.run("go", { stopWhen })).rejects.toThrow(
      /run\(\): `stopWhen\[0\]` hasToolCall\("Submit"\) .*did you mean "submit"/,
    );
    const events = loop.stream("go", { stopWhen });
    await expect(events[Symbol.asyncIterator]().next()).rejects.toThrow(TypeError);
    expect(provider.requests).toHaveLength(0);
  });

  it("is a TypeError at resume() for a run's stopWhen, and the state is not used up", async () => {
    const loop = loopOf([call("ask"), { text: "done" }]);
    const paused = await loop.run("go");
    expect(paused.status).toBe("needs_approval");
    const decisions = { ask1: { approve: true } };
    await expect(
      loop.resume(paused.state, decisions, { stopWhen: [hasToolCall("sumbit")] }),
    ).rejects.toThrow(/resume\(\): `stopWhen\[0\]` .*did you mean "submit"/);
    const done = await loop.resume(paused.state, decisions, { stopWhen: [hasToolCall("submit")] });
    expect(done.status).toBe("completed");
  });

  it('the final-answer tool counts as a tool in output mode "tool" (its own name too), not otherwise', async () => {
    const schema = z.object({ answer: z.string() });
    const provider = scriptedProvider([]);
    const withOutput = (output: unknown, stopWhen: unknown[]) => () =>
      new AgentLoop({ provider, tools, output: output as never, stopWhen: stopWhen as never });
    expect(withOutput({ schema, mode: "tool" }, [hasToolCall("final_answer")])).not.toThrow();
    expect(
      withOutput({ schema, mode: "tool", name: "report" }, [hasToolCall("report")]),
    ).not.toThrow();
    expect(withOutput({ schema, mode: "prompted" }, [hasToolCall("final_answer")])).toThrow(
      /"final_answer", which no tool of the loop has/,
    );
    expect(withOutput(undefined, [hasToolCall("final_answer")])).toThrow(TypeError);
    // A run's own output in "tool" mode: its final-answer tool may be named by the run's stopWhen.
    const loop = loopOf([{ toolCalls: [{ name: "done", args: { answer: "42" } }] }]);
    const result = await loop.run("go", {
      output: { schema, mode: "tool", name: "done" },
      stopWhen: [hasToolCall("done")],
    });
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ answer: "42" });
  });

  it("custom conditions are not checked", async () => {
    function calledWeather({ steps }: StopContext) {
      return steps.at(-1)?.calls.some((c) => c.toolName === "weather") ?? false;
    }
    const loop = loopOf([call("search"), { text: "done" }], { stopWhen: [calledWeather] });
    expect((await loop.run("go")).status).toBe("completed");
  });
});
