/**
 * `tollgate/file-store`: a `RunStore` in a folder, shared by every process that can reach it.
 *
 * Layout, one file name per id (`fileNameOf`: a readable slug plus the id's SHA-256, so ids that
 * differ only in case, or are very long, still get distinct names that fit):
 * - `states/<name>.json`: a run's latest state.
 * - `leases/<name>.json`: a run's lease record `{ runId, token, expiresAt }`; never deleted, so
 *   fencing tokens only grow. A new token is at least the clock in microseconds, so tokens grow
 *   also past a record that was lost; a `renew` or `put` that finds its record gone rejects.
 * - `leases/<name>.lock`: held for the few milliseconds an `acquire`, `renew`, `put` or
 *   `release` reads the lease record and makes its one write (`withFileLock`); a lock left by a
 *   crashed process is broken once it is 10 s old (`STALE_LOCK_MS` in file-lock.ts).
 * - `claims/<name>`: one file per claimed state, created with O_EXCL.
 * - `pending/<name>.json`: `{ runId, updatedAt }` for a run whose state may be paused, the index
 *   `listPending` reads. `put` writes it before a paused state and removes it after any other,
 *   so every paused state has one; `listPending` reads each run's state and skips a run that is
 *   not paused (an entry left by a crash between the two writes).
 *
 * Every write is durable: temp file, fsync, rename over the target, fsync the folder.
 * @module
 */
import { mkdir, readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { FullRunStore, RunLease, RunState, RunStoreOptions } from "tollgate";
// Pure helpers from util/ (no core state, no classes) are bundled into each entry.
import { lostRunData, nextToken } from "../util/fencing-token.js";
import { storeLeaseMs } from "../util/lease-ms.js";
import {
  isPausedStatus,
  type PendingEntry,
  pagedPending,
  pendingRunOf,
} from "../util/pending-page.js";
import { checkedId as idOf, isToken, checkedLease as leaseOf } from "../util/store-args.js";
import {
  codeOf,
  createExclusive,
  removeFile,
  syncFolder,
  writeFileDurably,
} from "./durable-file.js";
import { withFileLock } from "./file-lock.js";
import { fileNameOf } from "./file-names.js";

/** What a run's lease file holds. */
interface LeaseRecord {
  readonly runId: string;
  readonly token: number;
  readonly expiresAt: number;
}

/** The files of one run. */
interface RunFiles {
  readonly state: string;
  readonly lease: string;
  readonly lock: string;
  readonly pending: string;
}

/**
 * A `RunStore` in a folder, safe for many processes (and hosts with synced clocks) at once:
 * `acquire`, `renew`, `put` and `release` run under a per-run lock file and check the lease's
 * fencing token; `claim` is one O_EXCL file per state; every write survives a crash or power
 * loss whole or not at all. Use it to pause and resume runs across processes on one machine or
 * a shared disk.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools, store: fileRunStore("./runs") });
 */
export function fileRunStore(dir: string, options?: RunStoreOptions): FullRunStore {
  if (typeof dir !== "string" || dir === "") {
    throw new TypeError("fileRunStore: give a folder path");
  }
  const ttlMs = storeLeaseMs("fileRunStore", options);
  const root = resolve(dir);
  const folders = {
    states: join(root, "states"),
    leases: join(root, "leases"),
    claims: join(root, "claims"),
    pending: join(root, "pending"),
  };
  const ready = once(() => makeFolders(root, Object.values(folders)));

  const filesOf = (runId: string): RunFiles => {
    const name = fileNameOf(runId);
    return {
      state: join(folders.states, `${name}.json`),
      lease: join(folders.leases, `${name}.json`),
      lock: join(folders.leases, `${name}.lock`),
      pending: join(folders.pending, `${name}.json`),
    };
  };

  /** Runs `section` under the run's lock, given the run's lease record as it is now. */
  const underLock = async <T>(
    runId: string,
    section: (
      held: LeaseRecord | undefined,
      files: RunFiles,
      checkHeld: () => Promise<void>,
    ) => Promise<T>,
  ): Promise<T> => {
    await ready();
    const files = filesOf(runId);
    return withFileLock(files.lock, async (checkHeld) =>
      section(await readLease(files.lease), files, checkHeld),
    );
  };

  const writeLease = (file: string, record: LeaseRecord, checkHeld: () => Promise<void>) =>
    writeFileDurably(file, JSON.stringify(record), checkHeld);

  return {
    async get(runId) {
      const state = await readJson(filesOf(checkedId("get", runId)).state);
      return state as RunState | undefined;
    },
    async acquire(runId) {
      checkedId("acquire", runId);
      return underLock(runId, async (held, files, checkHeld) => {
        const now = Date.now();
        if (held && held.expiresAt > now) return undefined;
        const token = nextToken(held?.token);
        await writeLease(files.lease, { runId, token, expiresAt: now + ttlMs }, checkHeld);
        return { runId, token, ttlMs };
      });
    },
    async renew(lease) {
      const { runId, token } = checkedLease("renew", lease);
      return underLock(runId, async (held, files, checkHeld) => {
        if (held?.token !== token) return held ? false : lost("renew", runId, files);
        await writeLease(files.lease, { runId, token, expiresAt: Date.now() + ttlMs }, checkHeld);
        return true;
      });
    },
    async put(state, lease) {
      const { runId, token } = checkedLease("put", lease);
      if (state?.runId !== runId) return false;
      const text = JSON.stringify(state);
      return underLock(runId, async (held, files, checkHeld) => {
        if (held?.token !== token) return held ? false : lost("put", runId, files);
        if (isPausedStatus(state.status)) {
          const entry: PendingEntry = { runId, updatedAt: Date.now() };
          await writeFileDurably(files.pending, JSON.stringify(entry), checkHeld);
          await writeFileDurably(files.state, text, checkHeld);
        } else {
          await writeFileDurably(files.state, text, checkHeld);
          // Not synced: an entry that comes back after a crash is skipped by listPending.
          await removeFile(files.pending);
        }
        return true;
      });
    },
    async release(lease) {
      const { runId, token } = checkedLease("release", lease);
      await underLock(runId, async (held, files, checkHeld) => {
        if (held?.token !== token) return;
        await writeLease(files.lease, { runId, token, expiresAt: 0 }, checkHeld);
      });
    },
    async claim(stateId) {
      await ready();
      const file = join(folders.claims, fileNameOf(checkedId("claim", stateId)));
      if (!(await createExclusive(file, stateId))) return false;
      await syncFolder(folders.claims);
      return true;
    },
    async listPending(options) {
      await ready();
      const entries = await readPendingEntries(folders.pending);
      return pagedPending("fileRunStore", entries, options, async ({ runId, updatedAt }) => {
        const state = (await readJson(filesOf(runId).state)) as RunState | undefined;
        return state?.runId === runId && isPausedStatus(state.status)
          ? pendingRunOf(state, updatedAt)
          : undefined;
      });
    },
    async delete(runId) {
      checkedId("delete", runId);
      return underLock(runId, async (held, files, checkHeld) => {
        if (held && held.expiresAt > Date.now()) return false;
        // Raise the token first: an owner whose lease ran out can no longer write the run back.
        if (held)
          await writeLease(
            files.lease,
            { runId, token: nextToken(held.token), expiresAt: 0 },
            checkHeld,
          );
        // Every copy of the deleted state is used up: a signed copy must not resume the run.
        const state = (await readJson(files.state)) as RunState | undefined;
        if (typeof state?.stateId === "string") {
          const claim = join(folders.claims, fileNameOf(state.stateId));
          if (await createExclusive(claim, state.stateId)) await syncFolder(folders.claims);
        }
        await removeFile(files.state);
        await syncFolder(folders.states);
        await removeFile(files.pending);
        return true;
      });
    },
  };
}

/** Creates the store's folders and makes their entries durable. */
async function makeFolders(root: string, folders: string[]): Promise<void> {
  for (const folder of folders) await mkdir(folder, { recursive: true });
  await syncFolder(root);
  await syncFolder(dirname(root));
}

/**
 * A `renew` or `put` under a lease whose record is gone: lease records are never deleted, so
 * the folder lost the run's data (emptied, or restored from a copy without the file).
 */
function lost(method: string, runId: string, files: RunFiles): never {
  throw lostRunData(
    "fileRunStore",
    method,
    `the lease record of run ${runId} (${files.lease}) is gone`,
    "keep the store's folder whole (back it up and restore it as one)",
  );
}

/** The run's lease record, checked, or undefined before the run's first acquire. */
async function readLease(file: string): Promise<LeaseRecord | undefined> {
  const record = (await readJson(file)) as Partial<LeaseRecord> | undefined;
  if (record === undefined) return undefined;
  const { runId, token, expiresAt } = record;
  if (typeof runId !== "string" || !isToken(token) || typeof expiresAt !== "number") {
    throw new Error(`fileRunStore: ${file} is not a lease record; was it edited by hand?`);
  }
  return { runId, token, expiresAt };
}

/** The entries of the pending index; an entry removed while it is read is left out. */
async function readPendingEntries(folder: string): Promise<PendingEntry[]> {
  const entries: PendingEntry[] = [];
  for (const name of await readdir(folder)) {
    if (!name.endsWith(".json")) continue;
    const file = join(folder, name);
    const entry = (await readJson(file)) as Partial<PendingEntry> | undefined;
    if (entry === undefined) continue;
    if (typeof entry.runId !== "string" || !Number.isFinite(entry.updatedAt)) {
      throw new Error(`fileRunStore: ${file} is not a pending entry; was it edited by hand?`);
    }
    entries.push({ runId: entry.runId, updatedAt: entry.updatedAt as number });
  }
  return entries;
}

/** A file's JSON, or undefined when there is no such file. */
async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`fileRunStore: ${file} is not valid JSON`, { cause: error });
  }
}

const checkedId = (method: string, id: string) => idOf("fileRunStore", method, id);
const checkedLease = (method: string, lease: RunLease) => leaseOf("fileRunStore", method, lease);

/** Calls `make` once and shares its promise; after a failure the next call tries again. */
function once(make: () => Promise<void>): () => Promise<void> {
  let made: Promise<void> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}
