import { shownValue } from "./option-keys.js";

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
