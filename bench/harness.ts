/** Median, min and max of one measurement over its rounds. */
export interface Stats {
  median: number;
  min: number;
  max: number;
  samples: number[];
  /** Measured in the second phase (see `Contender.late`). */
  late?: boolean;
}

/** Median/min/max of some samples. */
export function stats(samples: number[]): Stats {
  if (samples.length === 0) throw new Error("stats: no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, samples };
}

/**
 * One side of a side-by-side measurement. `run()` does one unit of work worth `units` of what
 * is reported (e.g. one agent run of 20 tool steps = 20 units) and throws if it did not do
 * the expected work, so a broken setup cannot pass as a fast one.
 */
export interface Contender {
  name: string;
  units: number;
  run(): Promise<void>;
  /**
   * Measured after every other contender, in a second phase: for a library that slows every
   * later promise of the process once it has run (agents-core turns on AsyncLocalStorage,
   * which on Node 20 installs a promise hook for good), and for rows that show that effect.
   */
  late?: boolean;
}

/** How long to measure. */
export interface Budget {
  /** Rounds: one sample per contender per round. */
  rounds: number;
  /** Wall time of one sample, in ms (batches are sized to reach it). */
  sampleMs: number;
  /** Warm-up time per contender, in ms. */
  warmupMs: number;
}

/**
 * Measures contenders side by side in this process: warm each up, size a batch so one sample
 * takes about `sampleMs`, then take one sample per contender per round, rotating the order each
 * round so drift, noise and the garbage one contender leaves for the next collection spread
 * over all of them. `late` contenders get the same in a second phase, after the others are
 * done. Returns wall time per unit in µs; `samples` are in round order. No collection is
 * forced between samples: a forced full GC shrinks the young generation and slows the sample
 * after it (tried; it made every contender slower and noisier).
 */
export async function compare(
  contenders: readonly Contender[],
  budget: Budget,
): Promise<Map<string, Stats>> {
  const results = new Map<string, Stats>();
  for (const late of [false, true]) {
    const phase = contenders.filter((c) => Boolean(c.late) === late);
    for (const [name, result] of await measure(phase, budget)) {
      results.set(name, late ? { ...result, late } : result);
    }
  }
  return new Map(contenders.map(({ name }) => [name, results.get(name)!]));
}

async function measure(
  contenders: readonly Contender[],
  budget: Budget,
): Promise<Map<string, Stats>> {
  const batches = new Map<string, number>();
  for (const contender of contenders) {
    batches.set(contender.name, await warmUp(contender, budget));
  }
  const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < budget.rounds && contenders.length > 0; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length]!;
      const batch = batches.get(contender.name)!;
      const started = performance.now();
      for (let n = 0; n < batch; n++) await contender.run();
      const elapsed = performance.now() - started;
      samples.get(contender.name)!.push((elapsed * 1000) / (batch * contender.units));
    }
  }
  return new Map(contenders.map(({ name }) => [name, stats(samples.get(name)!)]));
}

/** Runs a contender for `warmupMs` (at least once), then times a run or more to size a sample's batch. */
async function warmUp(contender: Contender, budget: Budget): Promise<number> {
  const until = async (ms: number, minimum: number) => {
    let runs = 0;
    const started = performance.now();
    while (runs < minimum || performance.now() - started < ms) {
      await contender.run();
      runs++;
    }
    return (performance.now() - started) / runs;
  };
  await until(budget.warmupMs, 1);
  const perRun = await until(budget.sampleMs / 5, 1);
  return Math.max(1, Math.round(budget.sampleMs / perRun));
}

/**
 * The ratio `a / b` taken round by round (the two ran back to back in each round), then the
 * median: steadier than a ratio of medians on a machine whose load changes between rounds.
 * When one was measured in the late phase, the rounds are not paired: the ratio of medians.
 */
export function pairedRatio(a: Stats, b: Stats): number {
  if (Boolean(a.late) !== Boolean(b.late)) return a.median / b.median;
  const ratios = a.samples.map((value, round) => value / b.samples[round]!);
  return stats(ratios).median;
}

/** Throws with a message naming the contender when the work it did was not the expected work. */
export function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (actual !== expected) {
    throw new Error(
      `bench check failed: ${what}: expected ${String(expected)}, got ${String(actual)}`,
    );
  }
}

/** How many steps a run has and how many tool calls each step asks for. */
export interface LoopShape {
  steps: number;
  callsPerStep: number;
}

/** Counts tool executions; each contender resets and checks it around a run. */
export class Counter {
  count = 0;
  expect(what: string, expected: number): void {
    expectEqual(`${what}: tool executions`, this.count, expected);
    this.count = 0;
  }
}

/** The model's answer at step `k`: tool calls while k < steps, then the final text. */
export function script<C, A>(
  shape: LoopShape,
  call: (step: number, index: number) => C,
  answer: A,
): (C | A)[][] {
  return Array.from({ length: shape.steps + 1 }, (_, step) =>
    step < shape.steps
      ? Array.from({ length: shape.callsPerStep }, (_, index) => call(step, index))
      : [answer],
  );
}
