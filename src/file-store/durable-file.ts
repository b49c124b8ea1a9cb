import { randomUUID } from "node:crypto";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Error codes a folder fsync gives where folders cannot be opened or synced (Windows: EISDIR on
 * open, EPERM on fsync; some file systems: EINVAL). There the rename is as durable as it gets.
 */
const UNSYNCABLE_FOLDER = new Set(["EISDIR", "EPERM", "EINVAL"]);

/**
 * Replaces `file` with `text` so that a crash at any moment leaves either the old or the new
 * content, never a mix: write a temp file beside it, fsync it, rename it over `file`, fsync the
 * folder. `beforeCommit` runs right before the rename and may throw to leave `file` untouched.
 */
export async function writeFileDurably(
  file: string,
  text: string,
  beforeCommit?: () => Promise<void>,
): Promise<void> {
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeSynced(temporary, text);
    await beforeCommit?.();
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncFolder(dirname(file));
}

/**
 * Creates `file` holding `text` only if no file has that name: true, or false when it exists.
 * O_EXCL makes the check and the creation one step, so of many racing callers exactly one wins.
 */
export async function createExclusive(file: string, text: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(file, "wx");
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } catch (error) {
    await handle.close();
    await removeFile(file);
    throw error;
  }
  await handle.close();
  return true;
}

/** Flushes a folder's entries (a rename, a new file) to disk, where the platform can. */
export async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch (error) {
    if (!UNSYNCABLE_FOLDER.has(codeOf(error) ?? "")) throw error;
  } finally {
    await handle?.close();
  }
}

/** Removes a file; a file that is already gone is fine. */
export async function removeFile(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error;
  }
}

/** The `code` of a Node system error (`"ENOENT"`, `"EEXIST"`, ...), if it has one. */
export function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Writes a new file and fsyncs it before closing. */
async function writeSynced(file: string, text: string): Promise<void> {
  const handle = await open(file, "wx");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
