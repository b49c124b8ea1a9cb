/**
 * Measurement 9: tollgate as users write it, beside the AI SDK 7 as its docs show it. A run
 * asks for `calls` tool calls, one per step, then answers "done" (calls + 1 model calls).
 *
 * - tollgate: a new `scriptedProvider` (tollgate/testing) and a new `AgentLoop` per run, with
 *   2 pre-call hooks and a policy (the gate of section 1), a zod tool defined once, and
 *   `provider.assertComplete()` after the run, as a test would.
 * - AI SDK 7: `generateText` with a new `MockLanguageModelV4` per run answering the same
 *   script, the same zod tool, `stopWhen: stepCountIs(calls + 1)`.
 * - "tollgate, bare provider": tollgate's run with a plain `Provider` object (section 1's fake,
 *   a new one per run) instead of `scriptedProvider`: the difference is what the fake costs.
 *
 * Cold readings run in fresh processes (`--user-cold-child`, one contender each): the first
 * `runs` runs of the process, timed as one window, with the GC pauses of that window summed
 * from a `PerformanceObserver`. Warm readings run in the section's process after a fixed count
 * of warm-up runs; allocation and GC share there come from `v8.GCProfiler` over a window of
 * runs (allocated = heap used after − before + what each collection in the window freed).
 */
import { PerformanceObserver } from "node:perf_hooks";
import { GCProfiler } from "node:v8";
import { AgentLoop, type ModelResponse, type Provider, tool } from "tollgate";
import { type ScriptedTurn, scriptedProvider } from "tollgate/testing";
import { z } from "zod";
import { benchChild } from "./compile.js";
import { type Contender, expectEqual } from "./harness.js";
import { aiSdkContender, Counter } from "./loop-overhead.js";

/** The contenders of this section. */
export const USER_KINDS = ["tollgate", "ai", "bare"] as const;
/** One of `USER_KINDS`. */
export type UserKind = (typeof USER_KINDS)[number];

/** Row names. */
export const USER_NAMES: Record<UserKind, string> = {
  tollgate: "tollgate (scriptedProvider, new loop per run)",
  ai: "AI SDK 7 generateText (new MockLanguageModelV4 per run)",
  bare: "tollgate, bare Provider object (new loop per run)",
};

const ANSWER = "done";
const PROMPT = "What's the weather in Oslo?";
const input = z.object({ city: z.string() });

/** tollgate's gate of section 1: 2 pre-call hooks and a policy. */
const gate = {
  preToolCall: [
    (call: { name: string }) => (call.name === "rm_rf" ? { block: "not here" } : undefined),
    (call: { step: number }) => (call.step > 10_000 ? { stop: true as const } : undefined),
  ],
  policy: { decideToolCall: () => "ALLOW" as const, endsRun: () => false },
};

function tollgateTool(counter: Counter) {
  return tool({
    name: "get_weather",
    description: "Current weather for a city",
    input,
    execute: async ({ city }) => {
      counter.count++;
      return { city, tempC: 21 };
    },
  });
}

/** tollgate with `scriptedProvider`, or (`bare`) with section 1's plain `Provider` object. */
function tollgateUser(calls: number, bare: boolean): Contender {
  const name = USER_NAMES[bare ? "bare" : "tollgate"];
  const counter = new Counter();
  const getWeather = tollgateTool(counter);
  const turns: ScriptedTurn[] = [
    ...Array.from({ length: calls }, () => ({
      toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }],
    })),
    { text: ANSWER },
  ];
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const responses: ModelResponse[] = Array.from({ length: calls + 1 }, (_, step) =>
    step < calls
      ? {
          parts: [
            {
              type: "tool-call",
              id: `call_${step}_0`,
              name: "get_weather",
              args: '{"city":"Oslo"}',
            },
          ],
          finishReason: "tool-calls",
          usage,
        }
      : { parts: [{ type: "text", text: ANSWER }], finishReason: "stop", usage },
  );
  const bareProvider = (): Provider => ({
    name: "bench",
    model: "bench",
    generate: async (request) => {
      const response = responses[(request.messages.length - 1) / 2];
      if (!response) throw new Error(`bare fake: unexpected ${request.messages.length} messages`);
      return response;
    },
  });
  return {
    name,
    units: calls,
    async run() {
      const scripted = bare ? undefined : scriptedProvider(turns);
      const loop = new AgentLoop({
        provider: scripted ?? bareProvider(),
        tools: [getWeather],
        maxSteps: calls + 1,
        ...gate,
      });
      const result = await loop.run(PROMPT);
      scripted?.assertComplete();
      expectEqual(`${name}: status`, result.status, "completed");
      expectEqual(`${name}: text`, result.text, ANSWER);
      expectEqual(`${name}: steps`, result.steps.length, calls + 1);
      counter.expect(name, calls);
    },
  };
}

/** One contender of this section for runs of `calls` tool calls. */
export function userContender(kind: UserKind, calls: number): Contender {
  if (kind === "ai") return aiSdkContender({ steps: calls, callsPerStep: 1 }, USER_NAMES.ai);
  return tollgateUser(calls, kind === "bare");
}

// ---------------------------------------------------------------------------------------------
// cold: the first runs of a fresh process

/** One fresh process's reading. */
export interface ColdReading {
  /** Wall time of the window ÷ (runs × units): µs per run (1 call) or per tool step. */
  perUnit: number;
  /** The first run alone, in µs. */
  firstRunUs: number;
  /** GC pause time in the window ÷ its wall time. */
  gcShare: number;
}

/** Runs `runs` runs of one contender in a fresh process (`--user-cold-child`); its reading. */
export function coldReading(kind: UserKind, calls: number, runs: number): ColdReading {
  const stdout = benchChild([`--user-cold-child=${kind}:${calls}:${runs}`], [], 120_000);
  return JSON.parse(stdout) as ColdReading;
}

/** The cold child's work (`kind:calls:runs`): prints a `ColdReading` as JSON. */
export async function userColdChild(spec: string): Promise<void> {
  const [kind, calls, runs] = spec.split(":") as [UserKind, string, string];
  if (!USER_KINDS.includes(kind)) throw new Error(`--user-cold-child: unknown contender ${kind}`);
  const contender = userContender(kind, Number(calls));
  let gcMs = 0;
  let started = Number.POSITIVE_INFINITY;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.startTime >= started) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  started = performance.now();
  await contender.run();
  const firstRunUs = (performance.now() - started) * 1000;
  for (let i = 1; i < Number(runs); i++) await contender.run();
  const elapsed = performance.now() - started;
  // GC entries are delivered asynchronously: let them arrive, then keep the window's.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const reading: ColdReading = {
    perUnit: (elapsed * 1000) / (Number(runs) * contender.units),
    firstRunUs,
    gcShare: gcMs / elapsed,
  };
  process.stdout.write(JSON.stringify(reading));
}

// ---------------------------------------------------------------------------------------------
// warm: allocation and GC share over a window of runs

/** Allocation and GC over a window of runs of one contender. */
export interface AllocationReading {
  bytesPerRun: number;
  /** Collections in the window and their share of its wall time. */
  collections: number;
  gcShare: number;
}

/**
 * Runs a contender `runs` times under `v8.GCProfiler`: bytes allocated per run (heap used after
 * − before, plus what every collection of the window freed) and the GC share of the window
 * (the collections' summed cost ÷ wall time). No collection is forced.
 */
export async function allocation(contender: Contender, runs: number): Promise<AllocationReading> {
  const profiler = new GCProfiler();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  profiler.start();
  for (let i = 0; i < runs; i++) await contender.run();
  const { statistics } = profiler.stop();
  const elapsedUs = (performance.now() - started) * 1000;
  const after = process.memoryUsage().heapUsed;
  let freed = 0;
  let costUs = 0;
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    costUs += gc.cost;
  }
  return {
    bytesPerRun: (after - before + freed) / runs,
    collections: statistics.length,
    gcShare: costUs / elapsedUs,
  };
}

/** Runs a contender `runs` times (the warm-up before the warm readings). */
export async function warmUp(contender: Contender, runs: number): Promise<void> {
  for (let i = 0; i < runs; i++) await contender.run();
}
