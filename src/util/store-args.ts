/** An id given to a store method, checked to be a string (a store never guesses what a number meant). */
export function checkedId(where: string, method: string, id: unknown): string {
  if (typeof id !== "string") {
    throw new TypeError(`${where}.${method}: the id must be a string, not ${typeof id}`);
  }
  return id;
}

/** A lease given to a store method, checked to be one `acquire` could have returned. */
export function checkedLease<Lease extends { runId: string; token: number }>(
  where: string,
  method: string,
  lease: Lease,
): Lease {
  if (typeof lease?.runId !== "string" || !isToken(lease.token)) {
    throw new TypeError(`${where}.${method}: give a lease returned by acquire`);
  }
  return lease;
}

/** Whether a value can be a fencing token: a positive safe integer. */
export function isToken(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}
