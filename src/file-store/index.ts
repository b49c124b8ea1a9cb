import { mkdir, open, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunState, RunStore } from "tollgate";

/**
 * A `RunStore` in a folder, shared by every process that can reach it: one JSON file per run
 * (its latest state, replaced atomically by write-then-rename), and one claim file per resumed
 * state, created with O_EXCL so exactly one process, ever, wins a claim.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools, store: fileRunStore("./runs") });
 */
export function fileRunStore(dir: string): RunStore {
  if (typeof dir !== "string" || dir === "")
    throw new TypeError("fileRunStore: give a folder path");
  const claims = join(dir, "claims");
  let ready: Promise<unknown> | undefined;
  const prepare = () => (ready ??= mkdir(claims, { recursive: true }));
  const fileOf = (runId: string) => join(dir, `${encodeURIComponent(runId)}.json`);
  return {
    async get(runId) {
      try {
        return JSON.parse(await readFile(fileOf(runId), "utf8")) as RunState;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async put(state) {
      await prepare();
      const file = fileOf(state.runId);
      const temporary = `${file}.${crypto.randomUUID()}.tmp`;
      await writeFile(temporary, JSON.stringify(state));
      await rename(temporary, file);
    },
    async claim(stateId) {
      await prepare();
      try {
        const handle = await open(join(claims, encodeURIComponent(stateId)), "wx");
        await handle.close();
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      }
    },
  };
}
