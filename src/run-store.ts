import type { RunState } from "./run-state.js";

/**
 * Where a loop keeps run states so that pauses and crashes survive the process. `claim` is
 * what makes a resume happen once: it must be atomic across every process sharing the store.
 */
export interface RunStore {
  /** The latest state written for a run, if any. */
  get(runId: string): Promise<RunState | undefined>;
  /** Writes a state as its run's latest (paused states and checkpoints alike). */
  put(state: RunState): Promise<void>;
  /** Claims a state for resuming: true for the first caller, false for every later one. */
  claim(stateId: string): Promise<boolean>;
}

/**
 * A `RunStore` in this process's memory: for tests, and for apps that pause and resume in
 * one process. States are stored as JSON text, so later changes to an object never leak in.
 */
export function memoryRunStore(): RunStore {
  const states = new Map<string, string>();
  const claimed = new Set<string>();
  return {
    async get(runId) {
      const text = states.get(runId);
      return text === undefined ? undefined : (JSON.parse(text) as RunState);
    },
    async put(state) {
      states.set(state.runId, JSON.stringify(state));
    },
    async claim(stateId) {
      if (claimed.has(stateId)) return false;
      claimed.add(stateId);
      return true;
    },
  };
}
