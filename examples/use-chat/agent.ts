/**
 * The chat's agent: a tollgate loop on a scripted model (no API key, no network) with three
 * tools. `refund` waits for a human's approval, `weather` just runs, and `get_location` has no
 * `execute`: the browser answers it. The script: the model checks the weather and asks to refund
 * orders 7 and 8 (the run pauses for approval), then asks where the user is (the run waits for
 * the page), then says what happened. Each chat plays the script from its start.
 */
import { AgentLoop, type Message, memoryRunStore, type Provider, tool } from "tollgate";
import { type ScriptedProvider, type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** The loop, the store its paused runs wait in, and each order `refund` refunded (in order). */
export function chatAgent() {
  const refunds: number[] = [];
  const refund = tool({
    name: "refund",
    description: "Refund an order in full",
    input: z.object({ order: z.number().int() }),
    needsApproval: true,
    execute: ({ order }) => {
      refunds.push(order);
      return { refunded: order };
    },
  });
  const weather = tool({
    name: "weather",
    description: "The weather in a city now",
    input: z.object({ city: z.string() }),
    execute: ({ city }) => ({ city, tempC: 18, sky: "cloudy" }),
  });
  const getLocation = tool({
    name: "get_location",
    description: "Where the user is, from their browser",
    input: z.object({}),
  });

  const store = memoryRunStore();
  const loop = new AgentLoop({
    provider: scriptPerChat(),
    tools: [refund, weather, getLocation],
    store, // chatResponse resumes the state stored here, never one the browser sends
  });
  return { loop, store, refunds };
}

/**
 * The model's three turns. Each call gets an id of its own, as a real model's does: the chat
 * needs them unique across its runs, and the scripted model's default ids restart with each run.
 */
const script = (): ScriptedTurn[] => [
  {
    text: "Let me check the weather and refund both orders.",
    toolCalls: [
      { id: callId(), name: "weather", args: { city: "Oslo" } },
      { id: callId(), name: "refund", args: { order: 7 } },
      { id: callId(), name: "refund", args: { order: 8 } },
    ],
  },
  { toolCalls: [{ id: callId(), name: "get_location", args: {} }] },
  (request) => ({ text: whatHappened(request.messages) }),
];
const callId = () => `call_${crypto.randomUUID().slice(0, 8)}`;

/** The last turn's answer: what each call the model made came to, from what it was sent. */
function whatHappened(messages: Message[]): string {
  const args = new Map<string, any>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type === "tool-call") args.set(part.id, JSON.parse(part.args));
    }
  }
  const said = messages.flatMap((message) =>
    message.role !== "tool"
      ? []
      : message.results.map(({ toolCallId, toolName, output, isError }) => {
          const input = args.get(toolCallId);
          const out = output as any;
          if (toolName === "refund") {
            return isError
              ? `order ${input.order} is not (${out})`
              : `order ${out.refunded} is refunded`;
          }
          if (isError) return `${toolName} failed (${out})`;
          if (toolName === "weather") return `it is ${out.tempC} °C and ${out.sky} in ${out.city}`;
          return `you are at ${out.latitude}, ${out.longitude}`; // get_location, from the browser
        }),
  );
  return `Done: ${said.join("; ")}.`;
}

/**
 * A provider that gives each chat (a run id: the chat's id) a script of its own, so a new chat,
 * or a reloaded page, starts from the first turn; a message after the script's end plays it again.
 */
function scriptPerChat(): Provider {
  const scripts = new Map<string, ScriptedProvider>();
  const scriptOf = (runId = "") => {
    if (!scripts.get(runId)?.remaining) {
      scripts.set(runId, scriptedProvider(script(), { stream: true }));
    }
    return scripts.get(runId)!;
  };
  return {
    name: "scripted",
    model: "scripted",
    generate: (request, options) => scriptOf(options.runId).generate(request, options),
    stream: (request, options) => scriptOf(options.runId).stream!(request, options),
  };
}
