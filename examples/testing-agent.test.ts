/**
 * A complete test file for an agent, with no network: a smoke test on the auto model, a real
 * conversation replayed from a cassette, assertions on the gate's decisions, and a property
 * test of the gate over whatever the model might say. It runs with tollgate's own suite.
 *
 *   npx vitest run examples/testing-agent.test.ts
 *
 * The cassette (examples/cassettes/three-answers.json) is real OpenAI traffic (pydantic-ai's
 * test_complex_agent_run recording), recorded through `openAIChat` and `recordProvider`.
 */
import fc from "fast-check";
import { AgentLoop, type PreToolCallHook, type Provider, tool } from "tollgate";
import { openAIChat } from "tollgate/openai";
import { autoProvider, cassette, decisionsOf, noNetwork, scriptedProvider } from "tollgate/testing";
import { arbitraryTurns } from "tollgate/testing/arbitraries";
import "tollgate/vitest"; // the matchers: toHaveRunTool, toHaveRequestedTool, toHaveBlocked, …
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// The agent under test: three lookups and a final-answer tool that ends the run.
const getCountry = tool({ name: "get_country", input: z.object({}), execute: () => "Mexico" });
const getProductName = tool({
  name: "get_product_name",
  input: z.object({}),
  execute: () => "Pydantic AI",
});
const getWeather = tool({
  name: "get_weather",
  input: z.object({ city: z.string() }),
  execute: () => "sunny",
});
const finalResult = tool({
  name: "final_result",
  description: "The final response which ends this conversation",
  input: z.object({ answers: z.array(z.object({ label: z.string(), answer: z.string() })) }),
  execute: ({ answers }) => answers,
});
const tools = [getCountry, getProductName, getWeather, finalResult];

/** The gate: weather only for the cities we serve. */
const CITIES = ["Mexico City", "Oslo"];
const knownCities: PreToolCallHook = ({ name, args }) => {
  const { city } = args as { city?: unknown };
  if (name === "get_weather" && !CITIES.includes(city as string)) {
    return { block: `no weather for ${String(city)}` };
  }
};

function threeAnswersAgent(provider: Provider, maxRetries = 1) {
  return new AgentLoop({
    provider,
    tools,
    preToolCall: [knownCities],
    policy: { endsRun: ({ call }) => call.name === "final_result" },
    maxRetries, // calls to tools that do not exist, per name, before the run fails
  });
}

// No test of this file may reach a real model: a live adapter call throws.
let networkBack: () => void;
beforeAll(() => {
  networkBack = noNetwork();
});
afterAll(() => networkBack());

describe("the three-answers agent", () => {
  it("runs end to end on the auto model (args generated from each tool's schema)", async () => {
    const result = await threeAnswersAgent(autoProvider({ seed: 42 })).run("go");
    expect(result).toHaveRunTool("get_country");
    expect(result).toHaveBlocked("get_weather", /no weather for/); // a random city is not served
  });

  it("replays a real conversation from its cassette, offline", async () => {
    // TOLLGATE_CASSETTES=record runs it live once (with OPENAI_API_KEY) and writes the file.
    const model = cassette(
      openAIChat({ model: "gpt-4o" }),
      new URL("./cassettes/three-answers.json", import.meta.url).pathname,
    );
    const result = await threeAnswersAgent(model).run(
      "Tell me: the capital of the country; the weather there; the product name",
    );
    expect(result.status).toBe("ended_by_tool");
    expect(result).toHaveRunTools([
      "get_country",
      "get_product_name",
      "get_weather",
      "final_result",
    ]);
    expect(result).toHaveRunTool("get_weather", { city: "Mexico City" });
  });

  it("never gives the weather for a city it does not serve, whatever the model says", async () => {
    // Random steps of calls (unknown tools too), with args from each tool's schema. Args the
    // schema refuses are left out here: past a tool's maxRetries they end the run by design.
    // A script calls at most 4 × 3 unknown tools: the loop's maxRetries of 12 lets it go on.
    const scripts = arbitraryTurns(tools, { invalidArgs: false, badJson: false });
    await fc.assert(
      fc.asyncProperty(scripts, async (turns) => {
        const result = await threeAnswersAgent(scriptedProvider(turns), 12).run("go");
        for (const call of decisionsOf(result)) {
          if (call.tool === "get_weather" && call.ran) {
            expect(CITIES).toContain((call.args as { city: string }).city);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
