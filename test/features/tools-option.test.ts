import { AgentLoop, tool, toolset } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echo } from "../support/echo-tool.js";

/**
 * Habits users bring from the AI SDK and the OpenAI Agents SDK: what works the same here, and
 * what is refused with an error that says what to write instead.
 */

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

/** Options given as the user would write them, past the types (the habit is what is tested). */
const loopWith = (tools: unknown, provider = scriptedProvider([])) =>
  new AgentLoop({ provider, tools: tools as never });

describe("tools: { name: tool }, the AI SDK's record form", () => {
  it("runs the tools of a record as it runs those of an array", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", args: { city: "Oslo" }, id: "c1" }] },
      { text: "done" },
    ]);
    const result = await loopWith({ get_weather: getWeather, echo }, provider).run("weather?");
    expect(result.status).toBe("completed");
    expect(result.steps[0]!.tools).toEqual(["get_weather", "echo"]);
    expect(result.steps[0]!.calls[0]!.result).toMatchObject({ output: "sunny in Oslo" });
    expect(provider.requests[0]!.tools.map((spec) => spec.name)).toEqual(["get_weather", "echo"]);
  });

  it("an empty record is a loop without tools", async () => {
    const result = await loopWith({}, scriptedProvider([{ text: "hi" }])).run("hi");
    expect(result.steps[0]!.tools).toEqual([]);
  });

  it("a key that is not its tool's name is refused, saying what to write", () => {
    const make = () => loopWith({ weather: getWeather });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      'AgentLoop: tools.weather holds the tool named "get_weather"; in a { name: tool } record each key is its tool\'s name (the name the model calls): write "get_weather": <that tool>, or tools: [<that tool>]',
    );
  });

  it("a key that is not an identifier is shown quoted", () => {
    expect(() => loopWith({ "get-weather": getWeather })).toThrow(
      /^AgentLoop: tools\["get-weather"\] holds/,
    );
  });

  it("a record entry that is not a tool names its key", () => {
    expect(() => loopWith({ echo, other: { name: "other" } })).toThrow(
      'AgentLoop: tools.other must be a tool built with tool() from "tollgate", got an object without execute or input',
    );
  });

  it("one tool given as `tools` says to give a list", () => {
    expect(() => loopWith(echo)).toThrow(
      "AgentLoop: `tools` is one tool; give a list: tools: [yourTool]",
    );
  });

  it("something else says which forms `tools` takes", () => {
    expect(() => loopWith("echo")).toThrow(
      "AgentLoop: `tools` must be an array of tools, a { name: tool } record or a Toolset, got a string",
    );
  });
});

// An AI SDK or OpenAI Agents SDK tool given as a tool: test/tools/foreign-tools.test.ts (the real libraries).
describe("a plain object or a copy given as a tool", () => {
  const definition = {
    name: "weather",
    description: "Weather",
    input: z.object({ city: z.string() }),
    execute: () => "sunny",
  };

  it("a plain object with a tool's keys: says to pass it through tool()", () => {
    expect(() => loopWith([definition])).toThrow(
      'tools[0] is a plain object, not a tool; pass it through tool() first: tool({ name: "weather", description, input, execute }) checks it and computes its JSON Schema once',
    );
  });

  it("a spread copy of a tool: says a copy is not a tool", () => {
    expect(() => loopWith([{ ...echo, description: "Echo" }])).toThrow(
      /^tools\[0\] is a copy of a tool \(`\{ \.\.\.tool \}` makes a plain object, not a tool\)/,
    );
  });

  it("the same in toolset()", () => {
    expect(() => toolset([echo, definition as never])).toThrow(
      /^tools\[1\] is a plain object, not a tool; pass it through tool\(\) first/,
    );
  });

  it("a lone plain object as `tools`: says what it is and to give a list", () => {
    expect(() => loopWith(definition)).toThrow(
      /^AgentLoop: `tools` is a plain object, not a tool; .*; and `tools` takes a list/,
    );
  });

  it.each([
    ["inputSchema", "input"],
    ["parameters", "input"],
  ])("tool({ %s }) asks: did you mean `%s`?", (key) => {
    const make = () =>
      tool({ name: "weather", [key]: z.object({ city: z.string() }), execute: () => "" } as never);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`tool "weather": unknown option \`${key}\`; did you mean \`input\`?`);
  });
});
