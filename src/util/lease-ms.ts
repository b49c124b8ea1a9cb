import { checkKeys, shownValue } from "./option-keys.js";

/**
 * The options of a store that takes only `leaseMs` (the memory and file stores), checked: an
 * unknown key (`ttlMs`, `leaseMS`) is a `TypeError` with a did-you-mean, not a silent default.
 * Returns the lease length.
 */
export function storeLeaseMs(where: string, options: unknown): number {
  if (options !== undefined) checkKeys(where, options, ["leaseMs"], { ttlMs: "leaseMs" });
  return leaseMsOf(where, options as { leaseMs?: number } | undefined);
}

/**
 * The lease length of a store's options, checked: a positive whole number of milliseconds
 * (a fraction would reach a database as a bigint or a Redis PX and fail every run there).
 */
export function leaseMsOf(where: string, options: { leaseMs?: number } | undefined): number {
  const leaseMs: unknown = options?.leaseMs ?? 30_000;
  if (!Number.isSafeInteger(leaseMs) || (leaseMs as number) <= 0) {
    throw new TypeError(
      `${where}: leaseMs must be a positive whole number of milliseconds, not ${shownValue(leaseMs)}`,
    );
  }
  return leaseMs as number;
}
