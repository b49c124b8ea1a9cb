import type { RunState } from "../types/run-state.js";
import type { RunLease } from "./run-store.js";
import { sealState } from "./seal-state.js";
import type { RunData } from "./snapshot.js";
import { snapshot } from "./snapshot.js";
import type { StoreCalls } from "./store-calls.js";

/** A run's two kinds of write to its store. */
export interface RunWrites {
  /**
   * Writes the run as it stands (status "running"), in order after the writes before it;
   * resolves once written, rejects with `StoreError` if this write or an earlier one failed.
   * Resolves at once without a store.
   */
  checkpoint(): Promise<void>;
  /** Writes the run's final (or paused) state, sealed, after every checkpoint; nothing without a store. */
  write(state: RunState): Promise<void>;
}

/**
 * The run's writes to its store, in order: checkpoints (the run as it stands, status
 * "running", sealed here) and the final state (sealed already), each written with the run's
 * lease. A failed write fails every later one with the same `StoreError`, and no write's failure goes
 * unhandled. Without a store, nothing is written.
 */
export function runWrites(
  run: () => RunData & { readonly lease: RunLease | undefined },
  options: { store: StoreCalls | undefined; signingKey: string | Uint8Array | undefined },
): RunWrites {
  const { store, signingKey } = options;
  if (!store) return { checkpoint: () => Promise.resolve(), write: () => Promise.resolve() };
  let written: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  const enqueue = (sealed: () => Promise<RunState>) => {
    written = written.then(async () => {
      if (failure) return;
      try {
        const { lease } = run();
        if (!lease) throw new Error("tollgate: a run with a store writes only under its lease");
        await store.put(await sealed(), lease);
      } catch (error) {
        failure = { error };
      }
    });
    return written.then(() => {
      if (failure) throw failure.error;
    });
  };
  return {
    checkpoint: () => {
      const state = snapshot(run(), "running", { checkpoint: true }); // taken now, written in turn
      return enqueue(() => sealState(state, signingKey));
    },
    write: (state) => enqueue(() => Promise.resolve(state)),
  };
}
