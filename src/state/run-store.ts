import type { RunState } from "../types/run-state.js";
import type { ExternalCall, PendingApproval } from "../types/step-record.js";
import { nextToken } from "../util/fencing-token.js";
import { storeLeaseMs } from "../util/lease-ms.js";
import { pagedPending, pendingRunOf } from "../util/pending-page.js";
import { checkedId, checkedLease } from "../util/store-args.js";
import { isPaused } from "./run-state.js";

/**
 * A process's hold on one run. While a lease is live no other process may run or resume that
 * run; every write carries the lease, and the store refuses a write whose `token` is not the
 * run's latest, so an owner that stalled past its lease cannot overwrite its successor.
 */
export interface RunLease {
  readonly runId: string;
  /**
   * Fencing token: grows with every `acquire` of the run, also across a store that lost the
   * run's data (tollgate's stores take the clock's microseconds when those are more).
   */
  readonly token: number;
  /** How long the lease lasts after each acquire or renew; the loop renews it every third of that. */
  readonly ttlMs: number;
}

/**
 * Where a loop keeps run states so that pauses and crashes survive the process, shared by
 * every process that runs the same agents. `acquire`, `renew`, `put` and `claim` must each be
 * atomic across those processes (`runStoreConformance` in `tollgate/testing` checks a store).
 *
 * `listPending` and `delete` are for an approval inbox and for cleanup jobs: the loop never
 * calls them, so a store without them still runs and resumes runs. tollgate's stores have both
 * (their type is `FullRunStore`).
 */
export interface RunStore {
  /** The latest state written for a run, if any. */
  get(runId: string): Promise<RunState | undefined>;
  /**
   * Takes the run for this process: a new lease with a token greater than any before, or
   * `undefined` while another lease on the run is live (not expired). "Any before" includes
   * tokens the store has forgotten (a restart without persistence, a restore): see docs/scale.md.
   */
  acquire(runId: string): Promise<RunLease | undefined>;
  /**
   * Extends a lease: true while its token is still the run's latest, false once another process
   * took the run. A store that finds it no longer knows the run's token (it lost the run's
   * data) rejects, saying so, as `put` does.
   */
  renew(lease: RunLease): Promise<boolean>;
  /**
   * Writes a state as its run's latest: true, or false (nothing written) when the lease's token
   * is not the run's latest, or the lease is for another run (`state.runId !== lease.runId`).
   */
  put(state: RunState, lease: RunLease): Promise<boolean>;
  /** Gives a lease up early (after the run's last write), so the run can be resumed at once. */
  release(lease: RunLease): Promise<void>;
  /** Claims a state for resuming: true for the first caller, false for every later one. */
  claim(stateId: string): Promise<boolean>;
  /**
   * The runs whose latest state is paused (`needs_approval` or `needs_results`), oldest
   * `updatedAt` first (ties by `runId`), one page at a time: pass the page's `cursor` back to
   * get the next. A run whose state changes while you page may move to a later page or drop out;
   * each page reflects the store as it is when asked.
   */
  listPending?(options?: ListPendingOptions): Promise<PendingPage>;
  /**
   * Removes a run's state and frees its lease: true once the run has no state (also when it had
   * none), false while another process holds a live lease on it (then nothing changes: fail
   * closed, a running run is never pulled from under its owner). The run's fencing token is kept
   * and raised, so an owner whose lease had expired can never write the run back; claims are kept,
   * so a state already resumed stays used up, and the deleted state is claimed too, so no copy of
   * it (signed, held by a browser or a queue) can resume the run.
   */
  delete?(runId: string): Promise<boolean>;
}

/** A `RunStore` with `listPending` and `delete`, as tollgate's own stores are. */
export type FullRunStore = Required<RunStore>;

/** Options of `RunStore.listPending`. */
export interface ListPendingOptions {
  /** The most runs in one page: an integer from 1 to 1,000 (default 100). */
  limit?: number;
  /** The `cursor` of the previous page; absent for the first page. */
  cursor?: string;
}

/** One page of `RunStore.listPending`. */
export interface PendingPage {
  runs: PendingRun[];
  /** Present when more runs may follow: pass it as `cursor` to get them. */
  cursor?: string;
}

/** A paused run, as an approval inbox shows it. */
export interface PendingRun {
  runId: string;
  /** The paused state's id (what `resume` will claim). */
  stateId: string;
  status: "needs_approval" | "needs_results";
  /** The calls waiting for a decision (the state's `pending`), each with its digest. */
  pending: PendingApproval[];
  /** The client-side calls waiting for their results (the state's `external`). */
  external: ExternalCall[];
  /** When the store wrote the state, in ms since the epoch. */
  updatedAt: number;
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
export function memoryRunStore(options?: RunStoreOptions): FullRunStore {
  const ttlMs = storeLeaseMs("memoryRunStore", options);
  const states = new Map<string, string>();
  /** The paused runs: their state's text and when it was written. */
  const paused = new Map<string, { text: string; updatedAt: number }>();
  const leases = new Map<string, { token: number; expiresAt: number }>();
  const claimed = new Set<string>();
  const current = (method: string, lease: RunLease) => {
    const { runId, token } = checkedLease(WHERE, method, lease);
    return leases.get(runId)?.token === token;
  };
  return {
    async get(runId) {
      const text = states.get(checkedId(WHERE, "get", runId));
      return text === undefined ? undefined : (JSON.parse(text) as RunState);
    },
    async acquire(runId) {
      const held = leases.get(checkedId(WHERE, "acquire", runId));
      const now = Date.now();
      if (held && held.expiresAt > now) return undefined;
      const token = nextToken(held?.token);
      leases.set(runId, { token, expiresAt: now + ttlMs });
      return { runId, token, ttlMs };
    },
    async renew(lease) {
      if (!current("renew", lease)) return false;
      leases.set(lease.runId, { token: lease.token, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async put(state, lease) {
      if (!current("put", lease) || state?.runId !== lease.runId) return false;
      const text = JSON.stringify(state);
      states.set(state.runId, text);
      if (isPaused(state.status)) paused.set(state.runId, { text, updatedAt: Date.now() });
      else paused.delete(state.runId);
      return true;
    },
    async release(lease) {
      if (current("release", lease)) leases.set(lease.runId, { token: lease.token, expiresAt: 0 });
    },
    async claim(stateId) {
      if (claimed.has(checkedId(WHERE, "claim", stateId))) return false;
      claimed.add(stateId);
      return true;
    },
    async listPending(options) {
      const entries = [...paused].map(([runId, { updatedAt }]) => ({ runId, updatedAt }));
      return pagedPending(WHERE, entries, options, async ({ runId, updatedAt }) => {
        const text = paused.get(runId)?.text;
        return text === undefined ? undefined : pendingRunOf(JSON.parse(text), updatedAt);
      });
    },
    async delete(runId) {
      const held = leases.get(checkedId(WHERE, "delete", runId));
      if (held && held.expiresAt > Date.now()) return false;
      if (held) leases.set(runId, { token: nextToken(held.token), expiresAt: 0 });
      // Every copy of the deleted state is used up: a signed copy must not resume the run.
      const text = states.get(runId);
      if (text !== undefined) claimed.add((JSON.parse(text) as RunState).stateId);
      states.delete(runId);
      paused.delete(runId);
      return true;
    },
  };
}

/** The name errors of `memoryRunStore` start with. */
const WHERE = "memoryRunStore";
