/**
 * The agent of the remembered-decisions, repairToolCall and formatToolError tests, and helpers to
 * read its runs.
 */
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type Message,
  type RunState,
  tool,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

/** `send` needs approval, `wipe` needs approval, `note` does not; every execution is logged. */
export function agent(
  turns: Parameters<typeof scriptedProvider>[0],
  options: Partial<AgentLoopOptions> = {},
) {
  const ran: string[] = [];
  const send = tool({
    name: "send",
    input: z.object({ to: z.string().email() }),
    needsApproval: true,
    maxRetries: 1,
    execute: ({ to }) => {
      ran.push(`send ${to}`);
      return `sent to ${to}`;
    },
  });
  const wipe = tool({
    name: "wipe",
    input: z.object({}),
    needsApproval: true,
    execute: () => {
      ran.push("wipe");
      return "wiped";
    },
  });
  const note = tool({
    name: "note",
    input: z.object({ text: z.string() }),
    maxRetries: 1,
    execute: ({ text }) => {
      ran.push(`note ${text}`);
      return "noted";
    },
  });
  const events: LoopEvent[] = [];
  // One script for every loop of the agent: a resumed run continues where the paused one was.
  const provider = scriptedProvider(turns);
  const make = (extra: Partial<AgentLoopOptions> = {}) =>
    new AgentLoop({
      provider,
      tools: [send, wipe, note],
      onEvent: (event) => events.push(event),
      trustState: true,
      ...options,
      ...extra,
    });
  return { loop: make(), make, ran, events };
}

/** The state as it comes back from JSON, as a state stored or sent elsewhere does. */
export const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));
/** Every tool result in the transcript, in order. */
export const results = (messages: Message[]) =>
  messages.flatMap((message) => (message.role === "tool" ? message.results : []));
/** The tool result for call `id`, if the transcript has one. */
export const resultOf = (messages: Message[], id: string) =>
  results(messages).find((result) => result.toolCallId === id);
/** The tool-decision events among `events`. */
export const decisionsIn = (events: LoopEvent[]) =>
  events.flatMap((event) => (event.type === "tool-decision" ? [event] : []));

/** A scripted call of `send` to `to`, with call id `id`. */
export const sendTo = (id: string, to: string) => ({ id, name: "send", args: { to } });
