import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { codeOf, createExclusive, removeFile } from "./durable-file.js";

/**
 * A lock file untouched for longer than this (ms) was left by a crashed process, and the next
 * process that wants the lock removes it. A live holder needs milliseconds (two small reads and
 * one fsynced write), so 10 s leaves a wide margin for a slow disk before anyone calls it dead.
 */
export const STALE_LOCK_MS = 10_000;

/**
 * A holder commits, and removes its lock, only within this long (ms) of taking it: half the
 * stale bound, so that a lock is never broken while its holder may still commit. A holder that
 * took longer leaves its lock and runs its section again.
 */
const HOLD_MS = STALE_LOCK_MS / 2;

/** A caller that has waited this long (ms) for a lock gives up with an error. */
const WAIT_MS = 3 * STALE_LOCK_MS;

/** Thrown by `checkHeld` when the lock was lost; the section then runs again under a new lock. */
class LockLost extends Error {}

/** A lock this process created: the lock file holds `nonce`; `takenAt` is on the monotonic clock. */
interface HeldLock {
  readonly file: string;
  readonly nonce: string;
  readonly takenAt: number;
}

/**
 * Runs `section` while this process holds the lock file `file` (created with O_EXCL), so that
 * sections under the same file never overlap, across processes. `section` must call `checkHeld`
 * right before its one commit (a rename): if the lock is no longer this section's, `checkHeld`
 * throws, nothing is committed, and `section` runs again under a new lock.
 *
 * Safety rests on time: a lock is broken only once its file is `STALE_LOCK_MS` old, and its
 * holder commits only within `STALE_LOCK_MS / 2` of taking it. Two sections can commit at once
 * only if a process stalls for more than 5 s between `checkHeld` and its rename, or if the
 * clocks of the processes sharing the folder (or of a network file server) differ by more.
 */
export async function withFileLock<T>(
  file: string,
  section: (checkHeld: () => Promise<void>) => Promise<T>,
): Promise<T> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const lock = await takeLock(file, deadline);
    try {
      return await section(() => checkHeld(lock));
    } catch (error) {
      if (!(error instanceof LockLost)) throw error;
      if (performance.now() > deadline) throw lockTimeout(file);
    } finally {
      await dropLock(lock);
    }
  }
}

/** Creates the lock file, waiting (and breaking a stale lock) while another process holds it. */
async function takeLock(file: string, deadline: number): Promise<HeldLock> {
  const nonce = randomUUID();
  for (let attempt = 0; ; attempt++) {
    const takenAt = performance.now();
    if (await createExclusive(file, nonce)) return { file, nonce, takenAt };
    await breakIfStale(file);
    if (performance.now() > deadline) throw lockTimeout(file);
    await sleep(Math.min(2 ** attempt, 50) * (0.5 + Math.random()));
  }
}

/** The error of a caller that waited `WAIT_MS` for a lock in vain. */
function lockTimeout(file: string): Error {
  return new Error(
    `fileRunStore: could not hold ${file} for a write within ${WAIT_MS} ms. Another process ` +
      "holds it or the disk is very slow; if no process uses the store, delete the file.",
  );
}

/** Throws `LockLost` unless the lock file still holds this lock's nonce and it is not too old. */
async function checkHeld(lock: HeldLock): Promise<void> {
  const fresh = performance.now() - lock.takenAt < HOLD_MS;
  if (!fresh || (await nonceIn(lock.file)) !== lock.nonce) throw new LockLost();
}

/** Removes the lock file if it is still this lock's and young; otherwise it is left to go stale. */
async function dropLock(lock: HeldLock): Promise<void> {
  const fresh = performance.now() - lock.takenAt < HOLD_MS;
  if (fresh && (await nonceIn(lock.file)) === lock.nonce) await removeFile(lock.file);
}

/**
 * Removes a stale lock file. Breakers take turns through a `.break` file, and each checks the
 * lock is still stale once it has its turn, so no breaker removes a lock created meanwhile.
 * (A `.break` file left by a breaker that crashed is itself removed once stale.)
 */
async function breakIfStale(file: string): Promise<void> {
  if (!(await isStale(file))) return;
  const breaker = `${file}.break`;
  if (!(await createExclusive(breaker, ""))) {
    if (await isStale(breaker)) await removeFile(breaker); // its breaker crashed
    return;
  }
  try {
    if (await isStale(file)) await removeFile(file);
  } finally {
    await removeFile(breaker);
  }
}

/** Whether a file exists and was last changed more than `STALE_LOCK_MS` ago. */
async function isStale(file: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > STALE_LOCK_MS;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

/** The nonce in a lock file, or undefined when there is no lock file. */
async function nonceIn(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
}
