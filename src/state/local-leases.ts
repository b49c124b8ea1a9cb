import type { RunLease } from "./run-store.js";

/** When a lease this process holds runs out: `Infinity` while its run runs here. */
type Until = number;

/**
 * The run ids whose lease this process holds in one store, shared by every loop built over
 * that store object. Why: a store refuses a second lease without saying who holds the first,
 * and a second resume of one run in this process (a double submit) must not be told that
 * "another process" holds it.
 */
export class LocalLeases {
  readonly #until = new Map<string, Until>();

  /** A run of this process took the run id's lease. */
  hold(runId: string): void {
    this.#until.set(runId, Number.POSITIVE_INFINITY);
  }

  /** The run gave its lease back, or lost it to another process. */
  drop(runId: string): void {
    this.#until.delete(runId);
  }

  /** The run was aborted and keeps its lease until it runs out (its tools may still run). */
  leave(lease: RunLease): void {
    this.#until.set(lease.runId, Date.now() + lease.ttlMs);
    if (this.#until.size > PRUNE_AT) this.#prune();
  }

  /** Whether a run of this process holds the run id's lease: `"running"`, `"aborted"`, or undefined. */
  holder(runId: string): "running" | "aborted" | undefined {
    const until = this.#until.get(runId);
    if (until === undefined) return undefined;
    if (until === Number.POSITIVE_INFINITY) return "running";
    if (until > Date.now()) return "aborted";
    this.#until.delete(runId);
    return undefined;
  }

  /** Forgets the leases of aborted runs that have run out. */
  #prune(): void {
    const now = Date.now();
    for (const [runId, until] of this.#until) if (until <= now) this.#until.delete(runId);
  }
}

/** Past this many run ids, leases that ran out are forgotten. */
const PRUNE_AT = 1024;

const byStore = new WeakMap<object, LocalLeases>();

/** The leases this process holds in `store` (one registry per store object). */
export function localLeases(store: object): LocalLeases {
  let leases = byStore.get(store);
  if (!leases) {
    leases = new LocalLeases();
    byStore.set(store, leases);
  }
  return leases;
}
