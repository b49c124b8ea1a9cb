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
    const got =
      typeof db === "string"
        ? "a string (a connection URL?)"
        : db === null
          ? "null"
          : `a ${typeof db}`;
    throw new TypeError(
      `${where}: give a pg Pool or Client (new pg.Pool({ connectionString })), not ${got}`,
    );
  }
  return db as PostgresQueryable;
}

/** PostgreSQL's code for "relation does not exist". */
const UNDEFINED_TABLE = "42P01";

/**
 * Runs one parameterized statement. Every error of `pg` (connection refused, an ended pool, SQL
 * errors) is a rejection; a missing table says to migrate first.
 */
export async function run(
  db: PostgresQueryable,
  where: string,
  table: string,
  text: string,
  values: unknown[],
): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }> {
  let answer: { rows: unknown; rowCount: number | null };
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
