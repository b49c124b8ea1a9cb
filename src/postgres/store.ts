import type { FullRunStore, RunState, RunStoreOptions } from "tollgate";
// Pure helpers from util/ (no core state, no classes) are bundled into each entry.
import { leaseMsOf } from "../util/lease-ms.js";
import { listPendingOptions, pendingRunOf } from "../util/pending-page.js";
import { checkedId, checkedLease, isToken } from "../util/store-args.js";
import { checkedDb, type PostgresQueryable, run } from "./db.js";
import type { PostgresTableOptions } from "./migrate.js";
import { checkedOptions, namesOf } from "./names.js";

/** Options of `postgresRunStore`. */
export interface PostgresRunStoreOptions extends RunStoreOptions, PostgresTableOptions {}

const WHERE = "postgresRunStore";

/** A lease's end, `ms` after the database's `now()`. */
const LEASE_END = "now() + $2::bigint * interval '1 millisecond'";

/**
 * The database's clock in microseconds since the epoch: a floor of every new token, so tokens
 * keep growing after a restore took the rows and the sequence back (a backup, a failover to a
 * replica that had not caught up).
 */
const CLOCK_MICROS = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";

/** `updated_at` in ms since the epoch (exact: `extract` answers numeric). */
const UPDATED_MS = "(extract(epoch from updated_at) * 1000)::bigint AS updated_ms";

/**
 * A `RunStore` in a PostgreSQL table (made by `migratePostgresRunStore`), shared by every
 * process that reaches the database. `db` is your `pg` Pool or Client; you end it.
 *
 * Each method is one statement: `acquire` is an insert-or-update-if-expired that returns the
 * new token; `renew`, `put` and `release` are `UPDATE … WHERE token = $n` (fencing); `claim` is
 * an insert that does nothing when the row is there. Leases expire by the database's clock, so
 * hosts need no synced clocks. A new token is the greatest of the row's last plus one, the next
 * of one sequence (so tokens keep growing after `delete` or `prunePostgresRuns` removes a row)
 * and the database's clock in microseconds (so they keep growing after a restore took the
 * table and the sequence back). Every error of `pg` is a rejection.
 *
 * @example
 * const db = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migratePostgresRunStore(db);
 * const loop = new AgentLoop({ provider, tools, store: postgresRunStore(db) });
 */
export function postgresRunStore(
  db: PostgresQueryable,
  options?: PostgresRunStoreOptions,
): FullRunStore {
  checkedDb(WHERE, db);
  const checked = checkedOptions(WHERE, options, ["leaseMs", "table", "schema"]);
  const ttlMs = leaseMsOf(WHERE, checked);
  const { table, sequence, plain } = namesOf(WHERE, checked);
  const query = (text: string, values: unknown[]) => run(db, WHERE, plain, text, values);

  return {
    async get(runId) {
      const { rows } = await query(
        `SELECT state FROM ${table} WHERE kind = 'run' AND id = $1 AND state IS NOT NULL`,
        [checkedId(WHERE, "get", runId)],
      );
      const text = rows[0]?.state;
      return text === undefined ? undefined : (parseState(text) as RunState);
    },
    async acquire(runId) {
      const { rows } = await query(
        `INSERT INTO ${table} AS r (kind, id, token, lease_expires_at)
         VALUES ('run', $1, GREATEST(nextval('${sequence}'), ${CLOCK_MICROS}), ${LEASE_END})
         ON CONFLICT (kind, id) DO UPDATE
           SET token = GREATEST(EXCLUDED.token, r.token + 1),
               lease_expires_at = EXCLUDED.lease_expires_at
           WHERE r.lease_expires_at IS NULL OR r.lease_expires_at <= now()
         RETURNING token`,
        [checkedId(WHERE, "acquire", runId), ttlMs],
      );
      if (rows.length === 0) return undefined;
      return { runId, token: tokenOf(rows[0]?.token), ttlMs };
    },
    async renew(lease) {
      const { runId, token } = checkedLease(WHERE, "renew", lease);
      const { rowCount } = await query(
        `UPDATE ${table} SET lease_expires_at = ${LEASE_END}
         WHERE kind = 'run' AND id = $1 AND token = $3`,
        [runId, ttlMs, token],
      );
      return rowCount === 1;
    },
    async put(state, lease) {
      const { runId, token } = checkedLease(WHERE, "put", lease);
      if (state?.runId !== runId) return false;
      const paused = state.status === "needs_approval" || state.status === "needs_results";
      const { rowCount } = await query(
        `UPDATE ${table}
         SET state = $3, status = $4, paused = $5, updated_at = date_trunc('milliseconds', now())
         WHERE kind = 'run' AND id = $1 AND token = $2`,
        [runId, token, JSON.stringify(state), String(state.status), paused],
      );
      return rowCount === 1;
    },
    async release(lease) {
      const { runId, token } = checkedLease(WHERE, "release", lease);
      await query(
        `UPDATE ${table} SET lease_expires_at = NULL WHERE kind = 'run' AND id = $1 AND token = $2`,
        [runId, token],
      );
    },
    async claim(stateId) {
      const { rowCount } = await query(
        `INSERT INTO ${table} (kind, id) VALUES ('claim', $1) ON CONFLICT DO NOTHING`,
        [checkedId(WHERE, "claim", stateId)],
      );
      return rowCount === 1;
    },
    async listPending(options) {
      const { limit, after } = listPendingOptions(WHERE, options);
      if (after !== undefined && !Number.isSafeInteger(after.updatedAt)) {
        throw new TypeError(
          `${WHERE}.listPending: the cursor must be one a page of this store gave`,
        );
      }
      const keyset =
        "AND (updated_at, id) > (timestamptz 'epoch' + $2::bigint * interval '1 millisecond', $3)";
      const { rows } = await query(
        `SELECT id, state, ${UPDATED_MS} FROM ${table}
         WHERE kind = 'run' AND paused ${after === undefined ? "" : keyset}
         ORDER BY updated_at, id LIMIT $1`,
        after === undefined ? [limit + 1] : [limit + 1, after.updatedAt, after.runId],
      );
      const runs = rows
        .slice(0, limit)
        .map((row) => pendingRunOf(parseState(row.state) as RunState, Number(row.updated_ms)));
      const last = runs.at(-1);
      if (rows.length <= limit || last === undefined) return { runs };
      return { runs, cursor: JSON.stringify([last.updatedAt, last.runId]) };
    },
    async delete(runId) {
      // The outer SELECT sees the table as it was before the DELETE: a row that is there but was
      // not deleted is under a live lease.
      // The deleted state's claim is taken in the same statement: a copy of the state (signed,
      // held by a browser or a queue) can never resume a run that was deleted.
      const { rows } = await query(
        `WITH gone AS (
           DELETE FROM ${table} WHERE kind = 'run' AND id = $1
             AND (lease_expires_at IS NULL OR lease_expires_at <= now())
           RETURNING state
         ), used AS (
           INSERT INTO ${table} (kind, id)
             SELECT 'claim', state::json ->> 'stateId' FROM gone
             WHERE state IS NOT NULL AND state::json ->> 'stateId' IS NOT NULL
           ON CONFLICT DO NOTHING
         )
         SELECT EXISTS (SELECT 1 FROM gone) AS deleted,
                EXISTS (SELECT 1 FROM ${table} WHERE kind = 'run' AND id = $1) AS existed`,
        [checkedId(WHERE, "delete", runId)],
      );
      const { deleted, existed } = rows[0] ?? {};
      return deleted === true || existed === false;
    },
  };
}

/** A token as `pg` gives a bigint (a string), checked to be a safe positive integer. */
function tokenOf(value: unknown): number {
  const token = typeof value === "string" ? Number(value) : value;
  if (!isToken(token)) {
    throw new Error(`${WHERE}: the token sequence gave ${String(value)}, not a safe integer`);
  }
  return token;
}

/** A stored state's JSON text, parsed. */
function parseState(text: unknown): unknown {
  if (typeof text !== "string") {
    throw new Error(`${WHERE}: a stored state is not text; was the table changed by hand?`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${WHERE}: a stored state is not valid JSON`, { cause: error });
  }
}
