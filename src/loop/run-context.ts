import type { ResolvedOptions } from "../options/loop-options.js";
import type { StopCondition } from "../options/stop-conditions.js";
import type { ResolvedOutput } from "../output/output-option.js";
import type { RunLease } from "../state/run-store.js";
import type { RunWrites } from "../state/run-writes.js";
import type { RunData } from "../state/snapshot.js";
import type { LoopEvent } from "../types/events.js";
import type { ModelSettings } from "../types/provider.js";
import type { RunAbort } from "./run-abort.js";

/** One run while it runs: its data (see `RunData`), the loop's options, and its ways out. */
export interface RunContext<Deps> extends RunData, RunWrites {
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
  /**
   * Aborted when the caller aborts or the run is abandoned. The run rejects the moment it
   * aborts; the loop checks `abort.aborted` after every await, so nothing more runs or is
   * emitted. `abort.signal` is the AbortSignal user code gets (tools, providers), made when first read.
   */
  readonly abort: Pick<RunAbort, "aborted" | "reason" | "throwIfAborted" | "signal">;
  /** This process's lease on the run, when the loop has a store; every write carries it. */
  lease: RunLease | undefined;
  /** Hands an event to the listeners (and to `stream()`'s reader). */
  emit(event: LoopEvent): void;
  /** Whether anyone takes events now: hot paths skip building events nobody would get. */
  listening(): boolean;
}
