import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { type FileHandle, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { memoryRunStore, type RunStore } from "tollgate";
import { fileRunStore } from "tollgate/file-store";
import { runStoreConformance } from "tollgate/testing";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { writeFileDurably } from "../../src/file-store/durable-file.js";
import { STALE_LOCK_MS, withFileLock } from "../../src/file-store/file-lock.js";
import { fileNameOf } from "../../src/file-store/file-names.js";
import { stateOf } from "../support/run-states.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FILE_STORE = pathToFileURL(join(ROOT, "src", "file-store", "index.ts")).href;

/** A new empty folder, removed when the test that asked for it finishes. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-file-store-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const stores: [string, Parameters<typeof runStoreConformance>[0]][] = [
  ["memoryRunStore", (options) => memoryRunStore(options)],
  ["fileRunStore", (options) => fileRunStore(tempDir(), options)],
];
for (const [name, makeStore] of stores) {
  describe(`${name} keeps the RunStore contract`, () => {
    for (const check of runStoreConformance(makeStore)) it(check.name, check.run);
  });
}

/** Every file under `dir`, as paths relative to it. */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** The lock file `fileRunStore(dir)` uses for a run. */
const lockFileOf = (dir: string, runId: string) => join(dir, "leases", `${fileNameOf(runId)}.lock`);

/** An error as Node's fs gives it. */
const systemError = (code: string) => Object.assign(new Error(code), { code });

/** Whether a promise is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = new Promise((resolve) => setTimeout(resolve, ms, "pending"));
  return (await Promise.race([promise.then(() => "settled"), timeout])) === "pending";
}

describe("fileRunStore: file names", () => {
  it("gives ids that differ only in case names that differ also on a case-insensitive disk", async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    for (const runId of ["Run-1", "run-1"]) {
      await store.put(stateOf(runId, runId), (await store.acquire(runId))!);
    }
    const names = readdirSync(join(dir, "states"));
    expect(names).toHaveLength(2);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(2);
    expect((await store.get("Run-1"))?.runId).toBe("Run-1");
  });

  it("keeps every file name short and readable, whatever the id", async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    const runId = `Invoice #42/${"ü".repeat(300)}`;
    await store.put(stateOf(runId, "long"), (await store.acquire(runId))!);
    await store.claim(runId);
    for (const file of filesIn(dir)) {
      const name = file.split(/[\\/]/).pop()!;
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      expect(name).toMatch(/^invoice-42-[0-9a-f]{64}(\.json)?$/);
    }
  });

  it("tells apart ids that UTF-8 cannot (lone surrogates)", () => {
    expect(fileNameOf("\uD800")).not.toBe(fileNameOf("\uD801"));
    expect(fileNameOf("")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("fileRunStore: durable writes", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Spies on `FileHandle#sync`, the one way Node fsyncs through `fs/promises`. */
  async function spyOnSync(
    onSync: (handle: FileHandle, sync: () => Promise<void>) => Promise<void>,
  ) {
    const probe = await open(import.meta.filename, "r");
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const sync = prototype.sync;
    return vi.spyOn(prototype, "sync").mockImplementation(async function (this: FileHandle) {
      await onSync(this, () => sync.call(this));
    });
  }

  it("fsyncs the temp file before the rename and the folder after it", async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    const runId = "durable";
    const lease = (await store.acquire(runId))!;
    await store.put(stateOf(runId, "old"), lease);
    const target = join(dir, "states", `${fileNameOf(runId)}.json`);
    const seen: string[] = [];
    await spyOnSync(async (handle, sync) => {
      const kind = (await handle.stat()).isDirectory() ? "folder" : "file";
      const content = readFileSync(target, "utf8").includes("new:") ? "new" : "old";
      seen.push(`${kind} synced while the target is ${content}`);
      await sync();
    });
    expect(await store.put(stateOf(runId, "new"), lease)).toBe(true);
    // Windows cannot open a folder to fsync it; the store carries on there.
    const folder = (content: string) =>
      process.platform === "win32" ? [] : [`folder synced while the target is ${content}`];
    expect(seen).toEqual([
      // A paused state's listPending entry comes first, then the state itself.
      "file synced while the target is old",
      ...folder("old"),
      "file synced while the target is old",
      ...folder("new"),
    ]);
  });

  it.each(["EISDIR", "EPERM", "EINVAL"])(
    "ignores %s from a folder fsync (platforms that cannot fsync folders)",
    async (code) => {
      const dir = tempDir();
      const store = fileRunStore(dir);
      const lease = (await store.acquire("run"))!;
      await spyOnSync(async (handle, sync) => {
        if ((await handle.stat()).isDirectory()) throw systemError(code);
        await sync();
      });
      const state = stateOf("run", "kept");
      expect(await store.put(state, lease)).toBe(true);
      expect(await store.get("run")).toEqual(state);
    },
  );

  const kinds = process.platform === "win32" ? ["file"] : ["folder", "file"];
  it.each(kinds)("fails the write when a %s fsync fails with EIO", async (kind) => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    const lease = (await store.acquire("run"))!;
    await spyOnSync(async (handle, sync) => {
      const isFolder = (await handle.stat()).isDirectory();
      if (isFolder === (kind === "folder")) throw systemError("EIO");
      await sync();
    });
    await expect(store.put(stateOf("run", "lost"), lease)).rejects.toMatchObject({ code: "EIO" });
  });

  it("leaves no temp, lock or break files behind", async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    const lease = (await store.acquire("tidy"))!;
    await Promise.all([
      store.put(stateOf("tidy", "a"), lease),
      store.put(stateOf("tidy", "b"), lease),
      store.renew(lease),
      store.acquire("tidy"),
      store.claim("state-1"),
    ]);
    await store.release(lease);
    const name = fileNameOf("tidy");
    expect(filesIn(dir)).toEqual(
      [
        join("claims", fileNameOf("state-1")),
        join("leases", `${name}.json`),
        join("pending", `${name}.json`),
        join("states", `${name}.json`),
      ].sort(),
    );
  });

  it("readers never see a partial state, and a process killed mid-write leaves a whole one", async () => {
    const dir = tempDir();
    const writer = child(WRITER, { STORE_DIR: dir });
    await writer.output((out) => out.includes("wrote 0"));
    const store = fileRunStore(dir);
    const wrote = writer.output((out) => out.includes("wrote 20"));
    let reads = 0;
    while (await pendingAfter(wrote, 0)) {
      expectWhole(await store.get("crash"));
      reads += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    writer.process.kill("SIGKILL");
    await writer.exited;
    expectWhole(await store.get("crash"));
    expect(reads).toBeGreaterThan(5);
  });
});

describe("fileRunStore: locks across processes", () => {
  it("two Node processes racing for the same runs and states get one lease and one claim each", async () => {
    const dir = tempDir();
    const ids = Array.from({ length: 20 }, (_, i) => `shared-${i}`);
    const racers = [1, 2].map(() => child(RACER, { STORE_DIR: dir, IDS: JSON.stringify(ids) }));
    await Promise.all(racers.map((racer) => racer.output((out) => out.includes("ready"))));
    for (const racer of racers) racer.process.stdin!.write("go\n");
    const results = await Promise.all(
      racers.map(async (racer) => {
        const out = await racer.output((text) => text.includes("}"));
        return JSON.parse(out.slice(out.indexOf("{"))) as { leases: unknown[]; claims: boolean[] };
      }),
    );
    const [first, second] = results as [(typeof results)[0], (typeof results)[0]];
    ids.forEach((_, i) => {
      expect([first.leases[i], second.leases[i]].filter((token) => token !== null)).toEqual([
        expect.any(Number),
      ]);
      expect([first.claims[i], second.claims[i]].filter(Boolean)).toHaveLength(1);
    });
  });

  it("waits while another process holds a run's lock", async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    await store.acquire("warm-up");
    writeFileSync(lockFileOf(dir, "held"), "another process");
    const acquiring = store.acquire("held");
    expect(await pendingAfter(acquiring, 300)).toBe(true);
    await rm(lockFileOf(dir, "held"));
    expect(await acquiring).toMatchObject({ runId: "held", token: expect.any(Number) });
  });

  it(`breaks a lock file older than ${STALE_LOCK_MS} ms (left by a crashed process)`, async () => {
    const dir = tempDir();
    const store = fileRunStore(dir);
    await store.acquire("warm-up");
    const lock = lockFileOf(dir, "orphaned");
    writeFileSync(lock, "a crashed process");
    const past = (Date.now() - STALE_LOCK_MS - 1_000) / 1000;
    utimesSync(lock, past, past);
    const acquiring = store.acquire("orphaned");
    expect(await pendingAfter(acquiring, 1_000)).toBe(false);
    expect(await acquiring).toMatchObject({ token: expect.any(Number) });
    expect(filesIn(dir)).not.toContain(relative(dir, lock));
  });

  it("a holder whose lock was taken over does not commit, and runs its section again", async () => {
    const dir = tempDir();
    const [lock, target] = [join(dir, "x.lock"), join(dir, "x.json")];
    let attempts = 0;
    await withFileLock(lock, async (checkHeld) => {
      attempts += 1;
      if (attempts === 1) {
        writeFileSync(lock, "another holder's nonce");
        setTimeout(() => rmSync(lock, { force: true }), 100);
      }
      await writeFileDurably(target, `attempt ${attempts}`, checkHeld);
    });
    expect(attempts).toBe(2);
    expect(readFileSync(target, "utf8")).toBe("attempt 2");
    expect(filesIn(dir)).toEqual(["x.json"]);
  });
});

describe("fileRunStore: checks", () => {
  it("rejects a missing folder and a bad leaseMs", () => {
    expect(() => fileRunStore("")).toThrow(TypeError);
    expect(() => fileRunStore(tempDir(), { leaseMs: 0 })).toThrow(/leaseMs/);
  });

  it("rejects a lease it could not have given, and refuses a lease file edited by hand", async () => {
    const dir = tempDir();
    const store: RunStore = fileRunStore(dir);
    const forged = { runId: "run", ttlMs: 1 } as never;
    await expect(store.renew(forged)).rejects.toThrow(TypeError);
    await store.acquire("run");
    writeFileSync(join(dir, "leases", `${fileNameOf("run")}.json`), '{"token":"1"}');
    await expect(store.acquire("run")).rejects.toThrow(/not a lease record/);
  });
});

/** How many times the writer child repeats a state's one-character `stateId`. */
const FILL_LENGTH = 1_000_000;

/** Checks a state the writer child wrote is whole: its fill is its one-character id, repeated. */
function expectWhole(state: unknown) {
  const { stateId, fill } = state as { stateId: string; fill: string };
  expect(fill.length).toBe(FILL_LENGTH);
  expect(fill).toBe(stateId.repeat(FILL_LENGTH));
}

/** Child: writes big states under one lease, forever, printing "wrote <n>" after each. */
const WRITER = `
const { fileRunStore } = await import(${JSON.stringify(FILE_STORE)});
const store = fileRunStore(process.env.STORE_DIR);
const lease = await store.acquire("crash");
for (let n = 0; ; n++) {
  const stateId = String(n % 10);
  await store.put({ runId: "crash", stateId, fill: stateId.repeat(${FILL_LENGTH}) }, lease);
  console.log("wrote " + n);
}`;

/** Child: prints "ready", waits for a line on stdin, then acquires and claims every id at once. */
const RACER = `
const { fileRunStore } = await import(${JSON.stringify(FILE_STORE)});
const store = fileRunStore(process.env.STORE_DIR);
const ids = JSON.parse(process.env.IDS);
console.log("ready");
await new Promise((resolve) => process.stdin.once("data", resolve));
const leases = await Promise.all(ids.map((id) => store.acquire(id)));
const claims = await Promise.all(ids.map((id) => store.claim(id)));
console.log(JSON.stringify({ leases: leases.map((lease) => lease?.token ?? null), claims }));
process.exit(0);`;

/**
 * A Node child running `script` (an ES module, through tsx so it can import the TypeScript
 * source), killed when the test finishes.
 */
function child(script: string, env: Record<string, string>) {
  const proc: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", script],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] },
  );
  onTestFinished(() => {
    proc.kill("SIGKILL");
  });
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (chunk) => (stdout += chunk));
  proc.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  /** Resolves with stdout once `done(stdout)`; rejects if the child exits first. */
  const output = (done: (stdout: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (done(stdout)) resolve(stdout);
      };
      check();
      proc.stdout!.on("data", check);
      proc.once("exit", (code) => {
        if (!done(stdout)) reject(new Error(`child exited ${code} early: ${stderr}`));
      });
    });
  return { process: proc, output, exited };
}
