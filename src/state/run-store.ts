import { leaseMsOf } from "../util/lease-ms.js";
import type { RunState } from "./run-state.js";

/**
 * A process's hold on one run. While a lease is live no other process may run or resume that
 * run; every write carries the lease, and the store refuses a write whose `token` is not the
 * run's latest, so an owner that stalled past its lease cannot overwrite its successor.
 */
export interface RunLease {
  readonly runId: string;
  /** Fencing token: grows with every `acquire` of the run. */
  readonly token: number;
  /** How long the lease lasts after each acquire or renew; the loop renews it every third of that. */
  readonly ttlMs: number;
}

/**
 * Where a loop keeps run states so that pauses and crashes survive the process, shared by
 * every process that runs the same agents. `acquire`, `renew`, `put` and `claim` must each be
 * atomic across those processes (the suite in test/support/store-conformance.ts checks a store).
 */
export interface RunStore {
  /** The latest state written for a run, if any. */
  get(runId: string): Promise<RunState | undefined>;
  /**
   * Takes the run for this process: a new lease with a token greater than any before, or
   * `undefined` while another lease on the run is live (not expired).
   */
  acquire(runId: string): Promise<RunLease | undefined>;
  /** Extends a lease: true while its token is still the run's latest, false once another process took the run. */
  renew(lease: RunLease): Promise<boolean>;
  /** Writes a state as its run's latest: true, or false (nothing written) when the lease's token is not the run's latest. */
  put(state: RunState, lease: RunLease): Promise<boolean>;
  /** Gives a lease up early (after the run's last write), so the run can be resumed at once. */
  release(lease: RunLease): Promise<void>;
  /** Claims a state for resuming: true for the first caller, false for every later one. */
  claim(stateId: string): Promise<boolean>;
}

/** The methods a `RunStore` must have, for the check the loop makes of its `store` option. */
export const RUN_STORE_METHODS = ["get", "acquire", "renew", "put", "release", "claim"] as const;

/** Options of the stores tollgate ships. */
export interface RunStoreOptions {
  /** How long a lease lasts without renewal, in ms (default 30,000). A crashed process's run can be resumed after it. */
  leaseMs?: number;
}

/**
 * A `RunStore` in this process's memory: for tests, and for apps that pause and resume in
 * one process. States are stored as JSON text, so later changes to an object never leak in.
 */
export function memoryRunStore(options?: RunStoreOptions): RunStore {
  const ttlMs = leaseMsOf("memoryRunStore", options);
  const states = new Map<string, string>();
  const leases = new Map<string, { token: number; expiresAt: number }>();
  const claimed = new Set<string>();
  const current = (lease: RunLease) => leases.get(lease.runId)?.token === lease.token;
  return {
    async get(runId) {
      const text = states.get(runId);
      return text === undefined ? undefined : (JSON.parse(text) as RunState);
    },
    async acquire(runId) {
      const held = leases.get(runId);
      const now = Date.now();
      if (held && held.expiresAt > now) return undefined;
      const token = (held?.token ?? 0) + 1;
      leases.set(runId, { token, expiresAt: now + ttlMs });
      return { runId, token, ttlMs };
    },
    async renew(lease) {
      if (!current(lease)) return false;
      leases.set(lease.runId, { token: lease.token, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async put(state, lease) {
      if (state.runId !== lease.runId || !current(lease)) return false;
      states.set(state.runId, JSON.stringify(state));
      return true;
    },
    async release(lease) {
      if (current(lease)) leases.set(lease.runId, { token: lease.token, expiresAt: 0 });
    },
    async claim(stateId) {
      if (claimed.has(stateId)) return false;
      claimed.add(stateId);
      return true;
    },
  };
}
