import { checkKeys, shownValue } from "./option-keys.js";

/** Where one run sits in `listPending`'s order: oldest `updatedAt` first, ties by `runId`. */
export interface PendingEntry {
  readonly runId: string;
  readonly updatedAt: number;
}

/** Whether a state's status is a pause (`needs_approval` or `needs_results`): what `listPending` lists. */
export function isPausedStatus(status: unknown): status is "needs_approval" | "needs_results" {
  return status === "needs_approval" || status === "needs_results";
}

/** The fields of a paused state that `listPending` tells (typed structurally: util imports no core type). */
interface PausedStateFields<Pending, External> {
  runId: string;
  stateId: string;
  status: string;
  pending?: Pending[] | undefined;
  external?: External[] | undefined;
}

/** What `listPending` tells of a paused state written at `updatedAt` (every store's `PendingRun`). */
export function pendingRunOf<Pending, External>(
  state: PausedStateFields<Pending, External>,
  updatedAt: number,
) {
  return {
    runId: state.runId,
    stateId: state.stateId,
    status: state.status as "needs_approval" | "needs_results",
    pending: state.pending ?? [],
    external: state.external ?? [],
    updatedAt,
  };
}

/** The default and the largest `limit` of `listPending`. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;

/**
 * One page of `listPending` over a store's paused runs: checks the options, sorts `entries`,
 * skips to just after the cursor, and reads runs in order with `read` (which answers undefined
 * for a run that is no longer paused) until the page is full. The cursor names the last entry
 * looked at, so a page never repeats one and never skips one that stays put.
 */
export async function pagedPending<Run>(
  where: string,
  entries: PendingEntry[],
  options: { limit?: number; cursor?: string } | undefined,
  read: (entry: PendingEntry) => Promise<Run | undefined>,
): Promise<{ runs: Run[]; cursor?: string }> {
  const { limit, after } = listPendingOptions(where, options);
  const ordered = entries
    .filter((entry) => after === undefined || compareEntries(entry, after) > 0)
    .sort(compareEntries);
  const runs: Run[] = [];
  let index = 0;
  while (index < ordered.length && runs.length < limit) {
    const run = await read(ordered[index] as PendingEntry);
    if (run !== undefined) runs.push(run);
    index++;
  }
  if (index === ordered.length) return { runs };
  const last = ordered[index - 1] as PendingEntry;
  return { runs, cursor: cursorOf(last) };
}

/**
 * `listPending`'s options, checked: an unknown key (`{ limt: 10 }`) is a TypeError, not a page
 * of the default size. `after` is the entry the cursor names.
 */
export function listPendingOptions(
  where: string,
  options: { limit?: number; cursor?: string } | undefined,
): { limit: number; after: PendingEntry | undefined } {
  if (options !== undefined) checkKeys(`${where}.listPending`, options, ["limit", "cursor"]);
  const limit = limitOf(where, options?.limit);
  const after = options?.cursor === undefined ? undefined : cursorEntry(where, options.cursor);
  return { limit, after };
}

/** Orders entries oldest first, ties by run id (the order every store's `listPending` keeps). */
export function compareEntries(a: PendingEntry, b: PendingEntry): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt - b.updatedAt;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}

function limitOf(where: string, limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT) {
    throw new TypeError(
      `${where}.listPending: limit must be an integer from 1 to ${MAX_LIMIT}, not ${shownValue(limit)}`,
    );
  }
  return limit as number;
}

/** The cursor that names an entry: what `listPendingOptions` reads back as `after`. */
export function cursorOf(entry: PendingEntry): string {
  return JSON.stringify([entry.updatedAt, entry.runId]);
}

function cursorEntry(where: string, cursor: unknown): PendingEntry {
  let parsed: unknown;
  try {
    parsed = typeof cursor === "string" ? JSON.parse(cursor) : undefined;
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    Number.isFinite(parsed[0]) &&
    typeof parsed[1] === "string"
  ) {
    return { updatedAt: parsed[0], runId: parsed[1] };
  }
  throw new TypeError(`${where}.listPending: the cursor must be one a page of this store gave`);
}
