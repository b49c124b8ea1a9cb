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
 * Cold readings run in fresh processes (user-cold.ts's own bundle, one contender each, which
 * imports only that contender's library and zod): the first
 * `runs` runs of the process, timed as one window, with the GC pauses of that window summed
 * from a `PerformanceObserver`. Warm readings run in the section's process after a fixed count
 * of warm-up runs; allocation and GC share there come from `v8.GCProfiler` over a window of
 * runs (allocated = heap used after − before + what each collection in the window freed).
 */
import { spawnSync } from "node:child_process";
import { GCProfiler } from "node:v8";
import { compileColdChild, makeBuildDir } from "./compile.js";
import type { Contender } from "./harness.js";
import type { ColdReading, UserKind } from "./user-cold.js";

export {
  type ColdReading,
  USER_KINDS,
  USER_NAMES,
  type UserKind,
  userContender,
} from "./user-cold.js";

// ---------------------------------------------------------------------------------------------
// cold: the first runs of a fresh process

let coldChild: Promise<string> | undefined;

/** The cold child's bundle, compiled once per process into a temp dir removed at exit. */
function coldChildBundle(): Promise<string> {
  if (!coldChild) {
    const { dir, dispose } = makeBuildDir();
    process.once("exit", dispose);
    coldChild = compileColdChild(dir);
  }
  return coldChild;
}

/** Runs `runs` runs of one contender in a fresh process (the cold child); its reading. */
export async function coldReading(
  kind: UserKind,
  calls: number,
  runs: number,
): Promise<ColdReading> {
  const bundle = await coldChildBundle();
  const child = spawnSync(process.execPath, [bundle, `${kind}:${calls}:${runs}`], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (child.status !== 0) {
    throw new Error(
      `cold child ${kind}:${calls}:${runs}: exit ${child.status ?? child.signal}\n${child.stderr}`,
    );
  }
  return JSON.parse(child.stdout) as ColdReading;
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
