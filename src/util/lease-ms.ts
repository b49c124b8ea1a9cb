/** The lease length of a store's options, checked. */
export function leaseMsOf(where: string, options: { leaseMs?: number } | undefined): number {
  const leaseMs = options?.leaseMs ?? 30_000;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new TypeError(`${where}: leaseMs must be a positive number of milliseconds`);
  }
  return leaseMs;
}
