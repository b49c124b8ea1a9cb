import { checkConnected, checkedDb, type PostgresQueryable, UNDEFINED_SCHEMA } from "./db.js";
import { checkedOptions, namesOf, type StoreNames } from "./names.js";

/** Options of `migratePostgresRunStore`. */
export interface PostgresTableOptions {
  /** The table's name: a lower-case SQL name (default `"tollgate_runs"`). */
  table?: string;
  /**
   * The schema the table lives in (default: the connection's `search_path`, usually `public`).
   * It must exist: the migration does not create it (a typo would be a new, empty schema).
   */
  schema?: string;
}

/** The first key of the migration's advisory lock ("toll"); the second is the table's name, hashed. */
const LOCK_CLASS = 0x746f6c6c;

/**
 * Creates the store's table, its token sequence and its index of paused runs, if they are not
 * there yet. A `schema` must exist already (create it yourself); a missing one is an error. Call it once before `postgresRunStore` (at deploy, or at each start: it is
 * idempotent and safe to call from many processes at once, which queue on an advisory lock).
 *
 * The table (one per store; `table` and `schema` options name it):
 * - `kind = 'run'` rows: `id` (the run id), `token` (the latest fencing token, at least the
 *   next of the `<table>_token_seq` sequence, so tokens grow even across a deleted row, and the
 *   database's clock in microseconds, so they grow across a restore too), `lease_expires_at`
 *   (by the database's clock), `state` (the latest state's JSON), `status`, `paused`, `updated_at`.
 * - `kind = 'claim'` rows: `id` is a claimed state id. Claims share the table rather than have
 *   their own so that there is one thing to create, grant, back up and name.
 * - `<table>_pending`: a partial index on `(updated_at, id)` of paused runs, which `listPending`
 *   pages through.
 *
 * @example
 * const db = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migratePostgresRunStore(db);
 */
export async function migratePostgresRunStore(
  db: PostgresQueryable,
  options?: PostgresTableOptions,
): Promise<void> {
  const where = "migratePostgresRunStore";
  checkedDb(where, db);
  const names = namesOf(where, checkedOptions(where, options, ["table", "schema"]));
  checkConnected(where, db);
  // One simple-protocol query is one implicit transaction: the lock is held to its end, and an
  // error rolls it all back and leaves the connection clean for the pool.
  try {
    await db.query(migrationSql(names));
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === UNDEFINED_SCHEMA && names.schema) {
      throw new Error(
        `${where}: the schema ${names.schema} does not exist; create it first (CREATE SCHEMA ${names.schema}), or leave \`schema\` out to use the connection's search_path (public by default)`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** The migration's statements, as one text (names are checked and quoted; there are no values). */
function migrationSql(names: StoreNames): string {
  const { table, sequence, pendingIndex, plain } = names;
  return [
    `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${hash32(plain)})`,
    `CREATE SEQUENCE IF NOT EXISTS ${sequence}`,
    `CREATE TABLE IF NOT EXISTS ${table} (
      kind text NOT NULL CHECK (kind IN ('run', 'claim')),
      id text COLLATE "C" NOT NULL,
      token bigint,
      lease_expires_at timestamptz,
      state text,
      status text,
      paused boolean NOT NULL DEFAULT false,
      updated_at timestamptz,
      PRIMARY KEY (kind, id)
    )`,
    `CREATE INDEX IF NOT EXISTS ${pendingIndex} ON ${table} (updated_at, id) WHERE kind = 'run' AND paused`,
    "",
  ].join(";\n");
}

/** A text's FNV-1a hash as a signed 32-bit integer (an advisory lock key). */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
