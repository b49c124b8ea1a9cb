import type { ProviderCallOptions } from "tollgate";

/** Where a call sits in a cassette: its run (numbered in order of first call) and step. */
export interface CallKey {
  run: number;
  step: number;
}

/**
 * Numbers runs by the order they first call the provider (run ids are random, so a cassette
 * keeps positions, not ids): a resumed run keeps its id and so its number, and a fresh replay
 * that starts with `resume()` takes run 0. Calls without a `runId` count as one run of their
 * own; without a `step`, steps are counted per run.
 */
export class RunNumbers {
  readonly #runs = new Map<string | undefined, { run: number; calls: number }>();

  /** The key of the next call made with `options`. */
  next(options: ProviderCallOptions): CallKey {
    let entry = this.#runs.get(options.runId);
    if (entry === undefined) {
      entry = { run: this.#runs.size, calls: 0 };
      this.#runs.set(options.runId, entry);
    }
    const step = options.step ?? entry.calls;
    entry.calls++;
    return { run: entry.run, step };
  }
}
