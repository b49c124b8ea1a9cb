/**
 * The store's keys. The keys of one run share the hash tag `{run:<runId>}` (never empty, whatever
 * the id), so each Lua script touches one slot (Redis Cluster routes it to one node); a claim is
 * one key; the pending index is one key for the whole store.
 *
 * - `<prefix>{run:<runId>}:state`: the run's latest state, JSON. Paused and running states never
 *   expire; finished ones expire after `finishedTtlMs`.
 * - `<prefix>{run:<runId>}:lease`: the live lease's token, expiring by Redis's clock (PX).
 * - `<prefix>{run:<runId>}:token`: the latest fencing token, never expires (also across `delete`
 *   and expiry), so an owner whose lease ran out can never write the run back; a new token is
 *   at least Redis's clock in microseconds, so one lost with the key is still below the next.
 * - `<prefix>{claim:<stateId>}`: a used state, never expires.
 * - `<prefix>pending`: a sorted set of paused runs, score = `updatedAt`, member = run id.
 *
 * The names are one-to-one: a run key ends with `}:` and a fixed word of its own, a claim key
 * with `}`, the index with `pending`, so no id can forge another's key.
 */
export interface RunKeys {
  readonly state: string;
  readonly lease: string;
  readonly token: string;
}

/** The keys of one run. */
export function runKeys(prefix: string, runId: string): RunKeys {
  const base = `${prefix}{run:${runId}}:`;
  return { state: `${base}state`, lease: `${base}lease`, token: `${base}token` };
}

/** The key that marks a state as claimed. */
export function claimKey(prefix: string, stateId: string): string {
  return `${prefix}{claim:${stateId}}`;
}

/** The sorted set of paused runs. */
export function pendingKey(prefix: string): string {
  return `${prefix}pending`;
}
