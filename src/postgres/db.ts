import { isPlainObject, kindOf } from "../util/values.js";

/**
 * The part of a `pg` Pool or Client the Postgres store uses, written out so the published types
 * need no `@types/pg`: `query(text, values)` resolving to `{ rows, rowCount }`.
 */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

/** Checks that `db` can run queries (a `pg` Pool or Client), else a TypeError naming what it got. */
export function checkedDb(where: string, db: unknown): PostgresQueryable {
  if (
    typeof db !== "object" ||
    db === null ||
    typeof (db as PostgresQueryable).query !== "function"
  ) {
    throw new TypeError(
      `${where}: give a pg Pool or Client (new pg.Pool({ connectionString })), not ${givenDb(db)}`,
    );
  }
  return db as PostgresQueryable;
}

/** What was given instead of a client, for the message: a URL or a Pool's config is named. */
function givenDb(db: unknown): string {
  if (typeof db === "string") return "a string (a connection URL?)";
  if (isPlainObject(db) && ("connectionString" in db || "host" in db)) {
    return "a config object? wrap it in `new pg.Pool(…)`";
  }
  return kindOf(db);
}

/**
 * Rejects when `db` is a `pg.Client` that was never connected: pg would queue the query until
 * `connect()` and the call would hang forever. Only a value with pg's boolean `_connected` and
 * `_connecting` flags is checked (a Pool, or another client, has none); an ended client is left to
 * pg, which rejects its queries itself. Checked when a query is about to run, not when the store
 * is made, so a client may be connected after the store.
 */
export function checkConnected(where: string, db: PostgresQueryable): void {
  const flags = db as { _connected?: unknown; _connecting?: unknown; _ending?: unknown };
  if (
    typeof flags._connected === "boolean" &&
    typeof flags._connecting === "boolean" &&
    !flags._connected &&
    !flags._connecting &&
    flags._ending !== true
  ) {
    throw new Error(
      `${where}: the pg Client is not connected: call \`await client.connect()\` first (or give a pg.Pool)`,
    );
  }
}

/** PostgreSQL's code for "relation does not exist". */
const UNDEFINED_TABLE = "42P01";
/** PostgreSQL's code for "schema does not exist". */
export const UNDEFINED_SCHEMA = "3F000";

/**
 * Runs one parameterized statement. Every error of `pg` (connection refused, an ended pool, SQL
 * errors) is a rejection; a missing table says to migrate first, and a Client that was
 * never connected says to connect it rather than hang.
 */
export async function run(
  db: PostgresQueryable,
  where: string,
  table: string,
  text: string,
  values: unknown[],
): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }> {
  let answer: { rows: unknown; rowCount: number | null };
  checkConnected(where, db);
  try {
    answer = await db.query(text, values);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === UNDEFINED_TABLE) {
      throw new Error(
        `${where}: the table ${table} does not exist; call \`await migratePostgresRunStore(db)\` once before using the store`,
        { cause: error },
      );
    }
    throw error;
  }
  if (!Array.isArray(answer?.rows)) {
    throw new TypeError(`${where}: db.query did not give { rows }; give a pg Pool or Client`);
  }
  return answer as { rows: Record<string, unknown>[]; rowCount: number | null };
}
