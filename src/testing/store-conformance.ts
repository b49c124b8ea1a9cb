import type { RunStore, RunStoreOptions } from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { leaseChecks } from "./store-conformance-leases.js";
import { pendingChecks } from "./store-conformance-pending.js";
import type { CheckContext, StoreCheck } from "./store-conformance-support.js";

export type { StoreCheck } from "./store-conformance-support.js";

/**
 * Makes a store to check. It must honour `leaseMs` when given (the expiry checks pass a short
 * one). Each check makes its own store and uses ids of its own, so a factory may hand out stores
 * that share one backend.
 */
export type MakeRunStore = (options?: RunStoreOptions) => RunStore | Promise<RunStore>;

/** Options of `runStoreConformance`. */
export interface StoreConformanceOptions {
  /** The lease length (whole ms) of the expiry and renewal checks: room for a few store calls (default 300). */
  shortLeaseMs?: number;
  /** How many callers race in the concurrency checks (default 12). */
  racers?: number;
  /**
   * Groups to leave out, for a store without the optional methods: `["listPending", "delete"]`
   * (the loop needs neither). Only those two groups can be left out.
   */
  skip?: ("listPending" | "delete")[];
  /**
   * Makes the store's backend lose everything it holds, as a restart without persistence or a
   * restore from an older backup does (Redis: `FLUSHALL`; SQL: truncate the table and restart
   * its sequences; files: empty the folder). The check "fencing: a token after the store lost
   * a run …" then runs on the same store after it forgot. Without it, a store `makeStore` makes
   * afresh stands in for the store after the loss: that is a real loss when each store has a
   * backend of its own (a store in memory, a new folder, a new key prefix), and otherwise shows
   * only that tokens keep growing.
   */
  forget?: (store: RunStore) => void | PromiseLike<unknown>;
}

/** The groups `skip` may name. */
const OPTIONAL_GROUPS = ["listPending", "delete"] as const;

/**
 * The `RunStore` contract as a list of named async checks, for any store (tollgate's, or your
 * own on Redis, Postgres, DynamoDB, ...): states, leases with fencing tokens, expiry, claims,
 * races between callers, `listPending` and `delete`. Framework-agnostic: wrap each check in your
 * test runner's test. A store without `listPending` or `delete` (the loop needs neither) fails
 * the checks named `"listPending: …"` and `"delete: …"`; leave those out with `skip`.
 *
 * @example
 * for (const check of runStoreConformance((options) => myStore(options))) {
 *   it(check.name, check.run);
 * }
 */
export function runStoreConformance(
  makeStore: MakeRunStore,
  options: StoreConformanceOptions = {},
): StoreCheck[] {
  if (typeof makeStore !== "function") {
    throw new TypeError("runStoreConformance: give a function that makes a store");
  }
  checkKeys("runStoreConformance", options, ["shortLeaseMs", "racers", "skip", "forget"]);
  const { forget } = options;
  if (forget !== undefined && typeof forget !== "function") {
    throw new TypeError("runStoreConformance: forget must be a function that empties the store");
  }
  const skip = skipOf(options.skip);
  const shortLeaseMs = options.shortLeaseMs ?? 300;
  const racers = options.racers ?? 12;
  if (!Number.isSafeInteger(shortLeaseMs) || shortLeaseMs <= 0) {
    throw new TypeError("runStoreConformance: shortLeaseMs must be a positive whole number of ms");
  }
  if (!Number.isInteger(racers) || racers < 2) {
    throw new TypeError("runStoreConformance: racers must be an integer of at least 2");
  }
  const made = async (storeOptions?: RunStoreOptions) => {
    const store = await makeStore(storeOptions);
    if (typeof store !== "object" || store === null) {
      throw new Error("runStoreConformance: makeStore did not give a store");
    }
    return store;
  };
  const context: CheckContext = {
    makeStore: () => made(),
    shortLived: () => made({ leaseMs: shortLeaseMs }),
    shortLeaseMs,
    racers,
    afterLoss: async (store) => {
      if (!forget) return made();
      await forget(store);
      return store;
    },
  };
  return [...leaseChecks(context), ...pendingChecks(context)].filter(
    (check) => !skip.has(check.name.slice(0, check.name.indexOf(":"))),
  );
}

/** The groups to leave out, checked: a misspelt group must not leave a check in silently. */
function skipOf(skip: unknown): Set<string> {
  if (skip === undefined) return new Set();
  if (!Array.isArray(skip) || skip.some((group) => !OPTIONAL_GROUPS.includes(group))) {
    throw new TypeError(
      `runStoreConformance: skip must be a list of ${OPTIONAL_GROUPS.map((g) => `"${g}"`).join(" and ")}, not ${JSON.stringify(skip)}`,
    );
  }
  return new Set(skip);
}
