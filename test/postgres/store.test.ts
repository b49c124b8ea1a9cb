/**
 * tollgate/postgres against a real PostgreSQL (TOLLGATE_POSTGRES_URL; skipped with a printed
 * reason without it): the whole RunStore contract, and what is Postgres's own: the migration,
 * races across pools, leases by the database's clock, errors of pg, pruning, and a paused run
 * resumed by a second loop with its own pool.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { FullRunStore, RunState } from "tollgate";
import {
  migratePostgresRunStore,
  type PostgresQueryable,
  postgresRunStore,
  prunePostgresRuns,
} from "tollgate/postgres";
import { runStoreConformance } from "tollgate/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { approvalAgent } from "../support/approval-agent.js";
import { stateOf } from "../support/run-states.js";
import { serviceUrl } from "../support/services.js";

const url = serviceUrl("postgres", "test/postgres/store.test.ts");

/** This file's own database, made in beforeAll and dropped in afterAll. */
const database = `tollgate_test_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const urlOf = (name: string) => {
  const parsed = new URL(url ?? "postgres://127.0.0.1/");
  parsed.pathname = `/${name}`;
  return parsed.toString();
};
let admin: pg.Client;
let pool: pg.Pool;

/** A pool on this file's database, ended when the test finishes. */
function newPool(max = 10): pg.Pool {
  const made = new pg.Pool({ connectionString: urlOf(database), max });
  onTestFinished(() => made.end().catch(() => {}));
  return made;
}

/**
 * Drops this file's database once the ended pools' connections are gone (pg's `end()` resolves
 * before their sockets close; `WITH (FORCE)` would kill them and surface as uncaught errors).
 */
async function dropDatabase(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
      return;
    } catch (error) {
      // 55006: the database is still being accessed by other users.
      if ((error as { code?: string }).code !== "55006" || attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The ```ts block of a section of the stores guide (the excerpt of the example it links). */
function readmeSnippet(heading: string): string {
  const readme = readFileSync(new URL("../../docs/stores.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
}

describe("the stores guide's excerpt of examples/postgres-store.ts", () => {
  it("drops the example's own table, as its comment says, even when a step fails", () => {
    const code = readmeSnippet("## PostgreSQL");
    expect(code).toContain("// the example's own table, dropped at the end");
    expect(code).toMatch(
      /\} finally \{\s+await worker1\.query\(\s+`DROP TABLE IF EXISTS \$\{table\}; DROP SEQUENCE IF EXISTS \$\{table\}_token_seq`,\s+\);\s+await Promise\.all\(\[worker1\.end\(\), worker2\.end\(\)\]\);\s+\}\n\}\n$/,
    );
  });
});

/** A table name no other test uses. */
const tableName = () => `runs_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;

describe.skipIf(!url)("postgresRunStore", () => {
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: urlOf("postgres") });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    pool = new pg.Pool({ connectionString: urlOf(database) });
    await migratePostgresRunStore(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await dropDatabase();
    await admin?.end();
  });

  describe("keeps the RunStore contract", () => {
    // Forgetting is a restore to an empty backup: no rows, and the token sequence back at 1.
    const forget = () =>
      pool.query("TRUNCATE tollgate_runs; ALTER SEQUENCE tollgate_runs_token_seq RESTART");
    for (const check of runStoreConformance((options) => postgresRunStore(pool, options), {
      forget,
    })) {
      it(check.name, check.run);
    }
  });

  describe("migratePostgresRunStore", () => {
    it("is idempotent and safe from many clients at once", async () => {
      const table = tableName();
      const clients = Array.from(
        { length: 6 },
        () => new pg.Client({ connectionString: urlOf(database) }),
      );
      onTestFinished(async () => {
        await Promise.all(clients.map((client) => client.end()));
      });
      await Promise.all(clients.map((client) => client.connect()));
      await Promise.all(clients.map((client) => migratePostgresRunStore(client, { table })));
      await Promise.all(clients.map((client) => migratePostgresRunStore(client, { table })));
      const store = postgresRunStore(clients[0]!, { table });
      const lease = await store.acquire("run-1");
      expect(await store.put(stateOf("run-1", "s1"), lease!)).toBe(true);
      const { rows } = await pool.query(
        "SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname",
        [table],
      );
      expect(rows.map((row) => row.indexname)).toEqual([`${table}_pending`, `${table}_pkey`]);
    });

    it("makes the table in a schema of its own when asked", async () => {
      const options = { schema: `s_${tableName()}`, table: "runs" };
      await pool.query(`CREATE SCHEMA ${options.schema}`);
      await migratePostgresRunStore(pool, options);
      const store = postgresRunStore(pool, options);
      await store.put(stateOf("run-1", "in a schema"), (await store.acquire("run-1"))!);
      expect((await store.get("run-1"))?.runId).toBe("run-1");
      expect(await postgresRunStore(pool).get("run-1")).toBeUndefined();
    });

    it("refuses a schema that does not exist rather than create it (a typo is not a new schema)", async () => {
      const schema = `nosuch_${tableName()}`;
      await expect(migratePostgresRunStore(pool, { schema })).rejects.toThrow(
        `migratePostgresRunStore: the schema "${schema}" does not exist; create it first (CREATE SCHEMA "${schema}"), or leave \`schema\` out to use the connection's search_path (public by default)`,
      );
      const { rows } = await pool.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      expect(rows).toEqual([]);
      await expect(postgresRunStore(pool, { schema }).get("run-1")).rejects.toThrow(
        /does not exist; call `await migratePostgresRunStore/,
      );
    });
  });

  it("says to connect a pg Client that never was, rather than wait forever, and works once it is", async () => {
    const client = new pg.Client({ connectionString: urlOf(database) });
    onTestFinished(() => client.end());
    const store = postgresRunStore(client); // made before the client connects: allowed
    const notConnected =
      "the pg Client is not connected: call `await client.connect()` first (or give a pg.Pool)";
    const calls = everyCall(store, client);
    for (const call of calls) await expect(call).rejects.toThrow(notConnected);
    await client.connect();
    const runId = `connected-${tableName()}`;
    expect(await store.acquire(runId)).toMatchObject({ runId });
    expect(await prunePostgresRuns(client, { olderThanMs: 60_000 })).toBeGreaterThanOrEqual(0);
  });

  it("gives exactly one lease when acquires race across several pools", async () => {
    const stores = Array.from({ length: 4 }, () => postgresRunStore(newPool(3)));
    for (let round = 0; round < 5; round++) {
      const runId = `race-${round}-${tableName()}`;
      const leases = await Promise.all(
        Array.from({ length: 16 }, (_, i) => stores[i % stores.length]!.acquire(runId)),
      );
      expect(leases.filter((lease) => lease !== undefined)).toHaveLength(1);
    }
  });

  it("expires leases by the database's clock, not the host's", async () => {
    const store = postgresRunStore(pool, { leaseMs: 60_000 });
    const runId = `clock-${tableName()}`;
    const first = await store.acquire(runId);
    expect(first).toBeDefined();
    // The host's clock jumps two hours ahead: the lease is still live by the database's.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2 * 60 * 60_000 });
    try {
      expect(await store.acquire(runId)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
    const { rows } = await pool.query(
      `SELECT lease_expires_at - now() > interval '50 seconds' AS ahead FROM tollgate_runs WHERE kind = 'run' AND id = $1`,
      [runId],
    );
    expect(rows).toEqual([{ ahead: true }]);
    // The database's clock passes the lease's end (the row's end is moved back instead).
    await pool.query(
      "UPDATE tollgate_runs SET lease_expires_at = now() - interval '1 millisecond' WHERE kind = 'run' AND id = $1",
      [runId],
    );
    const second = await store.acquire(runId);
    expect(second?.token).toBeGreaterThan(first!.token);
  });

  it("says to migrate when the table is not there", async () => {
    const store = postgresRunStore(pool, { table: "never_migrated" });
    const migrate =
      /table never_migrated does not exist; call `await migratePostgresRunStore\(db\)`/;
    await expect(store.get("run-1")).rejects.toThrow(migrate);
    await expect(store.acquire("run-1")).rejects.toThrow(migrate);
    await expect(store.claim("state-1")).rejects.toThrow(migrate);
    await expect(store.listPending()).rejects.toThrow(migrate);
    await expect(
      prunePostgresRuns(pool, { olderThanMs: 0, table: "never_migrated" }),
    ).rejects.toThrow(migrate);
  });

  it("refuses bad options and clients with a TypeError", async () => {
    const notDb = ["postgres://localhost/db", null, undefined, {}, 42];
    for (const db of notDb) {
      expect(() => postgresRunStore(db as never)).toThrow(TypeError);
      await expect(migratePostgresRunStore(db as never)).rejects.toThrow(TypeError);
    }
    expect(() => postgresRunStore("postgres://x" as never)).toThrow(/give a pg Pool or Client/);
    expect(() => postgresRunStore(pool, { leaseMS: 10 } as never)).toThrow(
      /unknown option `leaseMS`; did you mean `leaseMs`/,
    );
    expect(() => postgresRunStore(pool, { tabel: "x" } as never)).toThrow(/did you mean `table`/);
    for (const table of ["Runs", "runs; DROP TABLE x", 'a"b', "", "x".repeat(49), 7]) {
      expect(() => postgresRunStore(pool, { table } as never)).toThrow(
        /table must be a lower-case SQL name/,
      );
    }
    expect(() => postgresRunStore(pool, { schema: "Public" })).toThrow(/schema must be/);
    expect(() => postgresRunStore(pool, { leaseMs: 0 })).toThrow(/leaseMs/);
    // A fraction of a ms would reach the database as a bigint and fail every run there.
    expect(() => postgresRunStore(pool, { leaseMs: 10.5 })).toThrow(
      "postgresRunStore: leaseMs must be a positive whole number of milliseconds, not 10.5",
    );
    expect(() => postgresRunStore(pool, { leaseMs: "5000" } as never)).toThrow(
      'not the string "5000" (write 5000, without quotes)',
    );
    expect(() => postgresRunStore({} as never)).toThrow(
      /\(new pg\.Pool\(\{ connectionString \}\)\), not an object$/,
    );
    for (const config of [{ connectionString: "postgres://localhost/db" }, { host: "db" }]) {
      expect(() => postgresRunStore(config as never)).toThrow(
        "not a config object? wrap it in `new pg.Pool(…)`",
      );
    }
    await expect(prunePostgresRuns(pool, { olderThanMs: "7d" } as never)).rejects.toThrow(
      'olderThanMs must be a whole number of milliseconds, 0 or more, not the string "7d"',
    );
    await expect(postgresRunStore(pool).listPending({ limit: "10" } as never)).rejects.toThrow(
      'limit must be an integer from 1 to 1000, not the string "10" (write 10, without quotes)',
    );
    expect(() => postgresRunStore(pool, { table: null } as never)).toThrow(/`table` is null/);
    await expect(migratePostgresRunStore(pool, { tables: "x" } as never)).rejects.toThrow(
      /did you mean `table`/,
    );
    await expect(prunePostgresRuns(pool, undefined as never)).rejects.toThrow(/olderThanMs/);
    for (const olderThanMs of [-1, 1.5, "60000", Number.NaN]) {
      await expect(prunePostgresRuns(pool, { olderThanMs } as never)).rejects.toThrow(TypeError);
    }
    const store = postgresRunStore(pool);
    await expect(store.listPending({ cursor: '[1.5,"run"]' })).rejects.toThrow(TypeError);
    await expect(store.get(7 as never)).rejects.toThrow(TypeError);
    await expect(store.put(stateOf("r", "s"), { runId: "r", token: "1" } as never)).rejects.toThrow(
      TypeError,
    );
  });

  it("rejects every call once the pool has ended, and when the server is unreachable", async () => {
    const ended = new pg.Pool({ connectionString: urlOf(database) });
    await ended.end();
    const store = postgresRunStore(ended);
    const calls = everyCall(store, ended);
    for (const call of calls) await expect(call).rejects.toThrow(/after calling end/);
    const nowhere = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/none" });
    onTestFinished(() => nowhere.end());
    await expect(postgresRunStore(nowhere).get("run-1")).rejects.toThrow(/ECONNREFUSED/);
  });

  it("prunes old finished runs, never paused or running ones, and keeps claims and fencing", async () => {
    const table = tableName();
    await migratePostgresRunStore(pool, { table });
    const store = postgresRunStore(pool, { table });
    const write = async (runId: string, status: string, release = true) => {
      const lease = (await store.acquire(runId))!;
      await store.put({ ...stateOf(runId, status), status } as RunState, lease);
      if (release) await store.release(lease);
      return lease;
    };
    const done = await write("done", "completed");
    await write("failed", "failed");
    await write("paused", "needs_approval");
    await write("waiting", "needs_results");
    await write("running", "running", false);
    await write("crashed", "running"); // released, but never finished
    expect(await store.claim("done-state")).toBe(true);
    await expect(prunePostgresRuns(pool, { olderThanMs: 60_000, table })).resolves.toBe(0);
    await expect(prunePostgresRuns(pool, { olderThanMs: 0, table })).resolves.toBe(2);
    const kept = await Promise.all(
      ["done", "failed", "paused", "waiting", "running", "crashed"].map(async (id) =>
        (await store.get(id)) === undefined ? null : id,
      ),
    );
    expect(kept).toEqual([null, null, "paused", "waiting", "running", "crashed"]);
    expect((await store.listPending()).runs.map((run) => run.runId)).toEqual(["paused", "waiting"]);
    expect(await store.claim("done-state")).toBe(false);
    expect(await store.put(stateOf("done", "late"), done)).toBe(false);
    expect((await store.acquire("done"))!.token).toBeGreaterThan(done.token);
  });

  it("pauses a real run for approval and resumes it through a second loop with its own pool", async () => {
    const folder = mkdtempSync(join(tmpdir(), "tollgate-postgres-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const log = join(folder, "tools.log");
    const signingKey = "test-signing-key";
    const first = approvalAgent({ log, signingKey, store: postgresRunStore(newPool()) });
    const runId = `pg-${tableName()}`;
    const paused = await first.run("send alice 10", { runId });
    expect(paused.status).toBe("needs_approval");
    const [call] = paused.pending!;

    const second = approvalAgent({ log, signingKey, store: postgresRunStore(newPool()) });
    const listed = await postgresRunStore(newPool()).listPending();
    expect(listed.runs.find((run) => run.runId === runId)?.pending).toEqual(paused.pending);
    const decisions = { [call!.toolCallId]: { approve: true as const, digest: call!.digest } };
    const done = await second.resume(runId, decisions);
    expect(done.status).toBe("completed");
    expect(readFileSync(log, "utf8")).toBe("transfer alice 10\n");
    await expect(second.resume(paused.state, decisions)).rejects.toThrow();
    expect(readFileSync(log, "utf8")).toBe("transfer alice 10\n");
  });
});

/** One call of every kind the package makes on a database: each store method, migrate, prune. */
function everyCall(store: FullRunStore, db: PostgresQueryable): Promise<unknown>[] {
  const lease = { runId: "run-1", token: 1, ttlMs: 1000 };
  return [
    store.get("run-1"),
    store.acquire("run-1"),
    store.renew(lease),
    store.put(stateOf("run-1", "s"), lease),
    store.release(lease),
    store.claim("state-1"),
    store.listPending(),
    store.delete("run-1"),
    migratePostgresRunStore(db),
    prunePostgresRuns(db, { olderThanMs: 0 }),
  ];
}
