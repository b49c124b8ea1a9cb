import type { RunLease, RunState, RunStore } from "tollgate";

/** One check of the `RunStore` contract: `run` resolves when the store keeps it, and rejects with an `Error` saying what broke when not. */
export interface StoreCheck {
  /** What the check shows, prefixed by its group: `"leases: …"`, `"listPending: …"`, `"delete: …"`. */
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** What every group of checks gets. */
export interface CheckContext {
  readonly makeStore: () => Promise<RunStore>;
  /** A store whose leases last `shortLeaseMs`. */
  readonly shortLived: () => Promise<RunStore>;
  readonly shortLeaseMs: number;
  readonly racers: number;
  /**
   * The store after it lost everything it held: `store` itself once the `forget` option made
   * its backend forget, else a store `makeStore` makes afresh.
   */
  readonly afterLoss: (store: RunStore) => Promise<RunStore>;
}

/** Throws an `Error` with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Throws unless `actual` and `expected` are the same JSON value (key order aside). */
export function ensureEqual(actual: unknown, expected: unknown, what: string): void {
  if (!sameJson(actual, expected)) {
    throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Throws unless `promise` rejects. */
export async function ensureRejects(promise: Promise<unknown>, what: string): Promise<void> {
  let answer: unknown;
  try {
    answer = await promise;
  } catch {
    return;
  }
  throw new Error(`${what}: expected a rejection, got ${show(answer)}`);
}

/** Whether two JSON values are equal, ignoring the order of object keys (stores may reorder them). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const bKeys = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) =>
    sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** A value in a failure message, cut short. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "undefined" : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * A minimal state for a run. Stores keep states as opaque JSON, so this is not a full `RunState`
 * (the cast keeps the suite independent of the state's schema version); the text has quotes,
 * escapes and non-ASCII to catch lossy encodings.
 */
export function stateOf(
  runId: string,
  note: string,
  fields: Partial<Pick<RunState, "status" | "pending" | "external">> = {},
): RunState {
  const state = {
    version: 1,
    stateId: uniqueId("state"),
    runId,
    status: "needs_approval",
    messages: [{ role: "user", content: `${note}: ünïcode ✓ "quotes" \\ back\nslash` }],
    steps: [],
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    ...fields,
  };
  return state as unknown as RunState;
}

/** Acquires a lease the check needs, failing the check when the store refuses. */
export async function leaseOf(store: RunStore, runId: string): Promise<RunLease> {
  const lease = await store.acquire(runId);
  ensure(lease, `acquire(${show(runId)}) gave no lease for a free run`);
  return lease;
}

/** An id no other check (or earlier run against a shared backend) uses. */
export function uniqueId(label: string): string {
  return `${label}-${globalThis.crypto.randomUUID()}`;
}

/** `count` values made by `make(i)`. */
export function times<T>(count: number, make: (i: number) => T): T[] {
  return Array.from({ length: count }, (_, i) => make(i));
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
