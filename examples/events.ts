/**
 * Events: every run reports what happens, in order — through `onEvent` (every event),
 * `loop.on(type, fn)` (one type; returns an unsubscribe function) and `loop.stream()` (an
 * async iterator ending with "run-finish"). A throwing listener never breaks the run.
 *
 *   npx tsx examples/events.ts
 */
import { pathToFileURL } from "node:url";
import type { LoopEventType } from "tollgate";
import { AgentLoop, tool } from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { z } from "zod";

const getTime = tool({
  name: "get_time",
  description: "The time in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `12:00 in ${city}`,
});

export async function main(): Promise<{ counts: Record<string, number>; streamed: string }> {
  // `stream: true`: the fake model streams text in chunks and tool-call args in fragments.
  const provider = scriptedProvider(
    [
      { text: "Checking.", toolCalls: [{ name: "get_time", args: { city: "Lima" } }] },
      { text: "It is 12:00 in Lima." },
    ],
    { stream: true },
  );

  // onEvent: every event of every run.
  const counts: Partial<Record<LoopEventType, number>> = {};
  const loop = new AgentLoop({
    provider,
    tools: [getTime],
    onEvent: (event) => {
      counts[event.type] = (counts[event.type] ?? 0) + 1;
    },
    onListenerError: (error, event) => console.log(`a ${event.type} listener failed: ${error}`),
  });

  // loop.on: one event type, typed.
  const off = loop.on("tool-decision", (event) => {
    console.log(`[${event.runId.slice(0, 8)}] ${event.toolName}: ${event.verdict} by ${event.by}`);
  });
  loop.on("step-finish", () => {
    throw new Error("oops"); // reported to onListenerError; the run goes on
  });

  // loop.stream(): the same events as an async iterator.
  let streamed = "";
  for await (const event of loop.stream("What time is it in Lima?")) {
    if (event.type === "text-delta") streamed += `${event.text}|`;
    if (event.type === "tool-result") console.log(`${event.toolName} →`, event.output);
    if (event.type === "run-finish") console.log(`run-finish: ${event.status}`);
  }
  off();

  console.log(`text deltas: ${streamed}`);
  console.log("event counts:", counts);
  return { counts, streamed };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
