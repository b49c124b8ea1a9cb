import { messageOf, ResumeError } from "../../errors.js";
import type { RunState } from "../../types/run-state.js";
import { RUN_STATE_VERSION } from "../run-state.js";
import { fromVersion2 } from "../stored-steps.js";

/** The loop's `stateMigrations`: by the version each upgrades from, a function to the next. */
export type StateMigrations = Record<number, (state: any) => unknown>;

/** The upgrades of tollgate's own older state versions, applied without being registered. */
const UPGRADES: Record<number, (state: unknown) => unknown> = { 2: fromVersion2 };

/**
 * Upgrades an older state to the version this build reads, one version at a time: with the
 * loop's `stateMigrations` for that version, else tollgate's own upgrade (from version 2 on).
 */
export function migrate(migrations: StateMigrations, state: RunState): RunState {
  let current = state;
  while (current.version < RUN_STATE_VERSION) {
    const from = current.version;
    const migration = migrations[from] ?? UPGRADES[from];
    if (!migration) {
      throw new ResumeError(
        `the state is version ${from} and this loop reads version ${RUN_STATE_VERSION}; register stateMigrations[${from}] to upgrade it`,
      );
    }
    try {
      current = migration(current) as RunState;
    } catch (error) {
      throw new ResumeError(`stateMigrations[${from}] threw: ${messageOf(error)}`, {
        cause: error,
      });
    }
    if (!Number.isInteger(current?.version) || current.version <= from) {
      throw new ResumeError(`stateMigrations[${from}] must return a state of a later version`);
    }
  }
  if (current.version > RUN_STATE_VERSION) {
    throw new ResumeError(
      `the state is version ${current.version}, newer than this loop reads (${RUN_STATE_VERSION}); upgrade tollgate`,
    );
  }
  return current;
}
