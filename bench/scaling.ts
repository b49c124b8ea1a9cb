/**
 * Measurement 3: does a step cost the same at step 10, 100 and 1,000 of one long run? The fake
 * model stamps the time of every call; the cost at step k is the time from model call k to
 * model call k + WINDOW, divided by WINDOW. The parallel rows (4 and 32 calls per step) reuse
 * the contenders of measurement 1.
 */
import { type Stats, stats } from "./harness.js";
import { tollgateContender } from "./loop-overhead.js";

/** Steps averaged per reading: one step alone is too short to time well. */
export const WINDOW = 10;

/** Per-step cost around each of `at`, over `runs` long runs (µs; median/min/max over runs). */
export async function longRunCost(
  at: readonly number[],
  runs: number,
): Promise<{ step: number; stats: Stats }[]> {
  const steps = Math.max(...at) + WINDOW + 1;
  const stamps = new Float64Array(steps + 1);
  const contender = tollgateContender(
    { steps, callsPerStep: 1 },
    { name: "tollgate long run", onModelCall: (step) => (stamps[step] = performance.now()) },
  );
  const readings = at.map(() => [] as number[]);
  await contender.run();
  for (let run = 0; run < runs; run++) {
    await contender.run();
    at.forEach((step, i) => {
      readings[i]!.push(((stamps[step + WINDOW]! - stamps[step]!) * 1000) / WINDOW);
    });
  }
  return at.map((step, i) => ({ step, stats: stats(readings[i]!) }));
}
