/**
 * Promises created per unit of work (per tool step, per streamed delta): a count, not a time,
 * so it does not move with the machine's load, and it tracks most of an async loop's overhead
 * (every await, async generator step and `.then` makes promises). Counted with an
 * `async_hooks` hook in a child process (the compiled bench again, with `--promises-child`),
 * so the hook never touches the timings.
 */

import { createHook } from "node:async_hooks";
import { benchChild } from "./compile.js";
import type { Contender } from "./harness.js";
import { loopContenders } from "./loop-overhead.js";
import { streamContenders } from "./streaming.js";

/** Which contenders to count: those of section 1 or of section 2. */
export type PromiseWorkload = "loop" | "stream";

function contenders(workload: PromiseWorkload, deltas: number): Contender[] {
  return workload === "loop"
    ? loopContenders({ steps: 20, callsPerStep: 1 })
    : streamContenders(deltas);
}

/** Starts the child and reads its counts: contender name → promises per unit. */
export function promisesPerUnit(workload: PromiseWorkload, deltas: number): Map<string, number> {
  const stdout = benchChild([`--promises-child=${workload}`, `--deltas=${deltas}`], [], 120_000);
  return new Map(Object.entries(JSON.parse(stdout) as Record<string, number>));
}

/** The child's work: one warm run, then one counted run per contender; prints JSON. */
export async function promisesChild(workload: PromiseWorkload, deltas: number): Promise<void> {
  let created = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") created++;
    },
  });
  const counts: Record<string, number> = {};
  for (const contender of contenders(workload, deltas)) {
    await contender.run();
    created = 0;
    hook.enable();
    await contender.run();
    hook.disable();
    counts[contender.name] = created / contender.units;
  }
  process.stdout.write(JSON.stringify(counts));
}
