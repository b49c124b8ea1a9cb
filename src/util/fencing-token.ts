/** The greatest token `nextToken` gave in this process (per bundle: each entry has its own). */
let issued = 0;

/**
 * A run's next fencing token: greater than `last` (the run's latest, if the store still knows
 * it) and than every token this process gave before, and at least the wall clock in
 * microseconds. The clock is what keeps tokens growing when the store forgets a run (a new
 * process for a store in memory, an emptied folder): a stalled owner's token is always below
 * the next one, so long as the clock has moved on since it was given.
 */
export function nextToken(last = 0): number {
  issued = Math.max(last + 1, issued + 1, Date.now() * 1000);
  return issued;
}

/**
 * The error of a `renew` or `put` whose run the store no longer knows (its token is gone): the
 * store lost the run's data, which is not another process taking the run over. `missing` says
 * what is gone and why it may have gone; `advice` what to keep next time.
 */
export function lostRunData(where: string, method: string, missing: string, advice: string): Error {
  return new Error(
    `${where}.${method}: ${missing}: the store lost the run's data. This process stops the run; run it again or resume it from a state you kept, and ${advice}`,
  );
}
