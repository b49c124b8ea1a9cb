/**
 * Measurement 1 (and the parallel rows of 3): the cost of the loop around a tool call. A fake
 * model asks for `callsPerStep` calls of one tool per step for `steps` steps, then answers
 * "done". Every contender gets the same tool (a zod `{ city: string }` schema), the same args
 * and the same number of model calls; each run checks that the tool ran steps × callsPerStep
 * times and that the run ended with the answer.
 */
import {
  Agent,
  type ModelRequest as AgentsRequest,
  type ModelResponse as AgentsResponse,
  tool as agentsTool,
  type Model,
  Runner,
  setTracingDisabled,
  Usage,
} from "@openai/agents-core";
import { assistantMessage, functionCall } from "@openai/agents-core/testing";
import { AgentLoop } from "tollgate";
import { z } from "zod";
import { aiSdkContender } from "./ai-sdk-contender.js";
import { type Contender, Counter, expectEqual, type LoopShape, script } from "./harness.js";
import {
  ANSWER,
  GATE,
  PROMPT,
  transcriptProvider,
  weatherResponses,
  weatherTool,
} from "./tollgate-weather.js";

const ARGS = '{"city":"Oslo"}';
const input = z.object({ city: z.string() });

/**
 * tollgate with the gate active: 2 pre-call hooks and a policy (`decideToolCall` → ALLOW,
 * `endsRun` → false). The fake is a plain `Provider` object with only `generate` (the
 * cheapest fair fake: no request recording, the same non-streaming path the AI SDK mock
 * takes), answering from the transcript length. One loop serves every run, as in an app.
 */
export function tollgateContender(
  shape: LoopShape,
  options: { name?: string; gate?: boolean; onModelCall?: (step: number) => void } = {},
): Contender {
  const { name = "tollgate", gate: gateActive = true, onModelCall } = options;
  const counter = new Counter();
  const loop = new AgentLoop({
    provider: transcriptProvider(weatherResponses(shape), onModelCall),
    tools: [weatherTool(counter)],
    maxSteps: shape.steps + 1,
    maxParallelToolCalls: shape.callsPerStep,
    ...(gateActive ? GATE : {}),
  });
  return {
    name,
    units: shape.steps,
    async run() {
      const result = await loop.run(PROMPT);
      expectEqual(`${name}: status`, result.status, "completed");
      expectEqual(`${name}: text`, result.text, ANSWER);
      expectEqual(`${name}: steps`, result.steps.length, shape.steps + 1);
      counter.expect(name, shape.steps * shape.callsPerStep);
    },
  };
}

/** A fake agents-core `Model`: answers from the length of the input it is sent. */
class FakeAgentsModel implements Model {
  readonly #outputs: AgentsResponse["output"][];
  readonly #itemsPerStep: number;

  constructor(shape: LoopShape) {
    this.#itemsPerStep = 2 * shape.callsPerStep;
    this.#outputs = script(
      shape,
      (step, index) =>
        functionCall("get_weather", ARGS, {
          callId: `call_${step}_${index}`,
        }) as AgentsResponse["output"][number],
      assistantMessage(ANSWER) as AgentsResponse["output"][number],
    );
  }

  async getResponse(request: AgentsRequest): Promise<AgentsResponse> {
    const items = Array.isArray(request.input) ? request.input.length : 1;
    const output = this.#outputs[(items - 1) / this.#itemsPerStep];
    if (!output) throw new Error(`agents-core fake: unexpected ${items} input items`);
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the bench never streams through agents-core
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("agents-core fake: streaming is not benchmarked");
  }
}

/** `@openai/agents-core`: `Runner.run` with a fake `Model`, tracing disabled (its best case). */
export function agentsContender(shape: LoopShape): Contender {
  const name = "OpenAI agents-core Runner";
  const counter = new Counter();
  setTracingDisabled(true);
  const agent = new Agent({
    name: "weather",
    instructions: "Answer with the weather.",
    model: new FakeAgentsModel(shape),
    tools: [
      agentsTool({
        name: "get_weather",
        description: "Current weather for a city",
        parameters: input,
        execute: async ({ city }) => {
          counter.count++;
          return { city, tempC: 21 };
        },
      }),
    ],
  });
  const runner = new Runner({ tracingDisabled: true });
  return {
    name,
    units: shape.steps,
    late: true,
    async run() {
      const result = await runner.run(agent, PROMPT, {
        maxTurns: shape.steps + 1,
      });
      expectEqual(`${name}: final output`, result.finalOutput, ANSWER);
      counter.expect(name, shape.steps * shape.callsPerStep);
    },
  };
}

type FloorMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; calls: { id: string; name: string; args: string }[] }
  | { role: "assistant"; text: string }
  | { role: "tool"; results: { id: string; output: string }[] };

/** The floor: a hand-written loop that only parses the JSON args, validates them with zod and calls the tool. */
export function floorContender(shape: LoopShape): Contender {
  const name = "floor (hand-written loop)";
  const counter = new Counter();
  const turns = script(
    shape,
    (step, index) => ({ id: `call_${step}_${index}`, name: "get_weather", args: ARGS }),
    { id: "", name: "", args: ANSWER },
  );
  const model = async (messages: FloorMessage[]): Promise<FloorMessage> => {
    const step = (messages.length - 1) / 2;
    return step < shape.steps
      ? { role: "assistant", calls: turns[step]! }
      : { role: "assistant", text: ANSWER };
  };
  const tools: Record<string, (args: { city: string }) => Promise<unknown>> = {
    get_weather: async ({ city }) => {
      counter.count++;
      return { city, tempC: 21 };
    },
  };
  return {
    name,
    units: shape.steps,
    async run() {
      const messages: FloorMessage[] = [{ role: "user", content: PROMPT }];
      for (;;) {
        const reply = await model(messages);
        messages.push(reply);
        if (!("calls" in reply)) break;
        const results = await Promise.all(
          reply.calls.map(async (call) => {
            const output = await tools[call.name]!(input.parse(JSON.parse(call.args)));
            return { id: call.id, output: JSON.stringify(output) };
          }),
        );
        messages.push({ role: "tool", results });
      }
      const last = messages[messages.length - 1]!;
      expectEqual(`${name}: text`, "text" in last ? last.text : undefined, ANSWER);
      counter.expect(name, shape.steps * shape.callsPerStep);
    },
  };
}

/**
 * Every contender of measurement 1, tollgate first. agents-core runs late (see
 * `Contender.late`), followed by tollgate and the floor again, to show what it does to them.
 */
export function loopContenders(shape: LoopShape): Contender[] {
  return [
    tollgateContender(shape),
    tollgateContender(shape, { name: "tollgate, no hooks/policy", gate: false }),
    floorContender(shape),
    aiSdkContender(shape),
    agentsContender(shape),
    { ...tollgateContender(shape, { name: AFTER_AGENTS("tollgate") }), late: true },
    { ...floorContender(shape), name: AFTER_AGENTS("floor (hand-written loop)"), late: true },
  ];
}

/** The name of a row measured after agents-core ran in the process. */
export const AFTER_AGENTS = (name: string) => `${name}, after agents-core ran ‡`;
