import { shownValue } from "../util/option-keys.js";
import { checkedDb, type PostgresQueryable, run } from "./db.js";
import type { PostgresTableOptions } from "./migrate.js";
import { checkedOptions, namesOf } from "./names.js";

/** Options of `prunePostgresRuns`. */
export interface PrunePostgresRunsOptions extends PostgresTableOptions {
  /** Drop finished runs last written at least this many ms ago (by the database's clock). */
  olderThanMs: number;
}

/**
 * Drops the finished runs (any status but `running`, `needs_approval` and `needs_results`)
 * last written at least `olderThanMs` ago and not under a live lease; answers how many it
 * dropped. Paused and running runs are never dropped. Claims are kept (a resumed state stays
 * used up), and tokens keep growing (they come from a sequence), so an owner that stalled
 * cannot write a dropped run back. Run it from a cron job or a timer.
 *
 * @example
 * const dropped = await prunePostgresRuns(db, { olderThanMs: 7 * 24 * 60 * 60 * 1000 });
 */
export async function prunePostgresRuns(
  db: PostgresQueryable,
  options: PrunePostgresRunsOptions,
): Promise<number> {
  const where = "prunePostgresRuns";
  checkedDb(where, db);
  if (options === undefined) {
    throw new TypeError(`${where}: give { olderThanMs }, how old a finished run must be to drop`);
  }
  const checked = checkedOptions(where, options, ["olderThanMs", "table", "schema"]);
  const { olderThanMs } = checked;
  if (!Number.isSafeInteger(olderThanMs) || (olderThanMs as number) < 0) {
    throw new TypeError(
      `${where}: olderThanMs must be a whole number of milliseconds, 0 or more, not ${shownValue(olderThanMs)}`,
    );
  }
  const { table, plain } = namesOf(where, checked);
  const { rowCount } = await run(
    db,
    where,
    plain,
    `DELETE FROM ${table}
     WHERE kind = 'run' AND NOT paused AND status IS NOT NULL AND status <> 'running'
       AND (lease_expires_at IS NULL OR lease_expires_at <= now())
       AND updated_at <= now() - $1::bigint * interval '1 millisecond'`,
    [olderThanMs],
  );
  return rowCount ?? 0;
}
