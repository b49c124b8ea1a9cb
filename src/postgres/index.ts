/**
 * `tollgate/postgres`: a `RunStore` in one PostgreSQL table, through your `pg` Pool or Client.
 * `migratePostgresRunStore` makes the table, `postgresRunStore` is the store, and
 * `prunePostgresRuns` drops old finished runs.
 * @module
 */
export type { PostgresQueryable } from "./db.js";
export { migratePostgresRunStore, type PostgresTableOptions } from "./migrate.js";
export { type PrunePostgresRunsOptions, prunePostgresRuns } from "./prune.js";
export { type PostgresRunStoreOptions, postgresRunStore } from "./store.js";
