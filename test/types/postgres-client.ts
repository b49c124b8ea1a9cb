// Type tests of tollgate/postgres: the store takes a real pg Pool or Client (typed structurally,
// so the published types need no @types/pg), and refuses a connection URL.
import pg from "pg";
import { migratePostgresRunStore, postgresRunStore, prunePostgresRuns } from "tollgate/postgres";

const pool = new pg.Pool();
const client = new pg.Client();
postgresRunStore(pool, { leaseMs: 10_000, table: "agent_runs", schema: "jobs" });
postgresRunStore(client);
await migratePostgresRunStore(pool, { table: "agent_runs" });
await migratePostgresRunStore(client);
await prunePostgresRuns(pool, { olderThanMs: 86_400_000 });

// @ts-expect-error a connection URL is not a client: give a pg Pool or Client
postgresRunStore("postgres://localhost/db");
// @ts-expect-error nor is the Pool's config
postgresRunStore({ connectionString: "postgres://localhost/db" });
// @ts-expect-error pruning needs olderThanMs
await prunePostgresRuns(pool, {});
