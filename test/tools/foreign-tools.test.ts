import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { foreignToolPeersMissing, INSTALL_COMMAND } from "../../bench/peers.js";

/**
 * A real AI SDK or OpenAI Agents SDK tool given to tollgate (the habit users bring) is refused
 * with an error that says what to write instead. The tools are built by the real libraries,
 * not look-alikes: `ai` and `@openai/agents-core` live in bench/'s own npm project (their
 * engines ask for Node 22; bench/peers.ts says why), installed by `npm run bench:install`, and
 * vitest.config.ts resolves them from bench/node_modules. Without them these cases are skipped
 * and say so; under TOLLGATE_REQUIRE_PEERS=1 (CI) a missing peer fails the file instead.
 */

const missing = foreignToolPeersMissing();
if (missing !== undefined && process.env.TOLLGATE_REQUIRE_PEERS === "1") {
  throw new Error(
    `TOLLGATE_REQUIRE_PEERS=1 and ${missing}: run \`${INSTALL_COMMAND}\` (the real AI SDK and OpenAI Agents SDK these tests build tools with)`,
  );
}
const skipReason =
  missing === undefined
    ? ""
    : ` (SKIPPED: ${missing}; run \`${INSTALL_COMMAND}\` to test against the real libraries)`;
if (missing !== undefined) console.warn(`test/tools/foreign-tools.test.ts${skipReason}`);

/** What these tests call of the AI SDK (`ai`). */
interface AiSdk {
  tool(definition: {
    description: string;
    inputSchema: unknown;
    execute(args: { city: string }): Promise<string>;
  }): object;
  jsonSchema(schema: object): object;
}
/** What these tests call of the OpenAI Agents SDK (`@openai/agents-core`). */
interface AgentsSdk {
  tool(definition: {
    name: string;
    description: string;
    parameters: unknown;
    execute(args: { city: string }): Promise<string>;
  }): object;
}

/**
 * Loads a peer. The specifier is a variable so that `npm run typecheck` needs no peer installed
 * (the types above are what these tests use of them); vitest resolves it through its alias.
 */
const load = async <T>(specifier: string) => (await import(/* @vite-ignore */ specifier)) as T;

const echo = tool({
  name: "echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Options given as the user would write them, past the types (the habit is what is tested). */
const loopWith = (tools: unknown) =>
  new AgentLoop({ provider: scriptedProvider([]), tools: tools as never });

const ai = missing === undefined ? await load<AiSdk>("ai") : undefined;
const agents = missing === undefined ? await load<AgentsSdk>("@openai/agents-core") : undefined;

describe.skipIf(missing !== undefined)(
  `a real AI SDK or OpenAI Agents SDK tool given to tollgate${skipReason}`,
  () => {
    const aiWeather = ai?.tool({
      description: "Weather",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => city,
    });
    const agentsWeather = agents?.tool({
      name: "weather",
      description: "Weather",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => city,
    });

    it("an AI SDK tool in a record: says to write tollgate's tool() with the key as the name", () => {
      expect(() => loopWith({ weather: aiWeather })).toThrow(
        'AgentLoop: tools.weather is an AI SDK tool (ai\'s tool()); tollgate\'s tools have a name and an `input`: write tool({ name: "weather", description, input: <the schema it was given (inputSchema; parameters before AI SDK 5)>, execute }) with tool from "tollgate"',
      );
    });

    it("an AI SDK tool in an array: says the same, with a placeholder name", () => {
      expect(() => loopWith([echo, aiWeather])).toThrow(
        /^tools\[1\] is an AI SDK tool .*write tool\(\{ name: "my_tool", description, input: <the schema it was given \(inputSchema; parameters before AI SDK 5\)>, execute \}\)/,
      );
    });

    it("an OpenAI Agents SDK tool: says to give tollgate's tool() the definition", () => {
      expect(() => loopWith([agentsWeather])).toThrow(
        'tools[0] is an OpenAI Agents SDK tool, already built by its tool(); write tool({ name: "weather", description, input: <the zod schema you gave as parameters>, execute }) with tool from "tollgate"',
      );
    });

    it("a lone foreign tool as `tools`: says what it is and to give a list", () => {
      expect(() => loopWith(aiWeather)).toThrow(
        /^AgentLoop: `tools` is an AI SDK tool .*; and `tools` takes a list: tools: \[yourTool\]$/,
      );
    });

    it("an AI SDK tool given to tool(): says to give it a name and `input`", () => {
      expect(() => tool(aiWeather as never)).toThrow(
        /AI SDK tool .*tool\(\{ name: "my_tool", description, input: <the schema it was given \(inputSchema; parameters before AI SDK 5\)>, execute/,
      );
    });

    it("an OpenAI Agents SDK tool given to tool(): says to give tollgate's tool() the definition", () => {
      expect(() => tool(agentsWeather as never)).toThrow(
        /tool "weather": this is an OpenAI Agents SDK tool.*input: <the zod schema you gave as parameters>/,
      );
    });

    it("the AI SDK's jsonSchema() as `input`: says what to write", () => {
      const make = () =>
        tool({ name: "t", input: ai?.jsonSchema({ type: "object" }) as never, execute: () => "" });
      expect(make).toThrow(TypeError);
      expect(make).toThrow(/is an AI SDK schema/);
    });
  },
);
