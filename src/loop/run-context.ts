import type { ResolvedOptions } from "../options/loop-options.js";
import type { ResolvedOutput } from "../output/output-option.js";
import type { RunLease } from "../state/run-store.js";
import type { RunWrites } from "../state/run-writes.js";
import type { RunData } from "../state/snapshot.js";
import type { LoopEvent } from "../types/events.js";
import type { ModelSettings } from "../types/provider.js";
import type { StopCondition } from "../types/stop-conditions.js";
import type { RunAbort } from "./run-abort.js";

/**
 * What a run is configured with: the loop's options and the run's own over them, resolved once
 * when the run starts and frozen (pydantic-ai's split of a run's dependencies from its state).
 * The run's data, which changes, is `RunData`, changed only by `run-record.ts`.
 */
export interface RunConfig<Deps> {
  readonly options: ResolvedOptions<Deps>;
  readonly deps: Deps;
  /** The system prompt of this run: the run's own, else the loop's. */
  readonly instructions: string | undefined;
  /** The model settings of this run: the run's own, else the loop's. */
  readonly settings: ModelSettings | undefined;
  /** The structured output of this run: the run's own, else the loop's. */
  readonly output: ResolvedOutput | undefined;
  /** The stop conditions of this run (`stopWhen`): the run's own, else the loop's. */
  readonly stopWhen: readonly StopCondition<Deps>[];
  /** How long each model call may take (`modelTimeoutMs`): the run's own, else the loop's. */
  readonly modelTimeoutMs: number | undefined;
}

/**
 * One run while it runs: its data (`RunData`, read-only here: `run-record.ts` changes it), its
 * frozen configuration (`config`), and its ways out: the abort, the lease, the events, the
 * store's writes.
 */
export interface RunContext<Deps> extends RunData, RunWrites {
  readonly config: RunConfig<Deps>;
  /**
   * Aborted when the caller aborts or the run is abandoned. The run rejects the moment it
   * aborts; the loop checks `abort.aborted` after every await, so nothing more runs or is
   * emitted. `abort.signal` is the AbortSignal user code gets (tools, providers), made when first
   * read; `abort.handsOutLazily()` says whether the next object given it should read it lazily.
   */
  readonly abort: Pick<
    RunAbort,
    "aborted" | "reason" | "throwIfAborted" | "signal" | "handsOutLazily" | "view"
  >;
  /** This process's lease on the run, when the loop has a store; every write carries it (`leaseTaken`). */
  readonly lease: RunLease | undefined;
  /** Hands an event to the listeners (and to `stream()`'s reader). */
  emit(event: LoopEvent): void;
  /** Whether anyone takes events now: hot paths skip building events nobody would get. */
  listening(): boolean;
}
