import type { LoopEvent } from "../events.js";
import type { ResolvedOptions } from "../loop-options.js";
import type { Message, Usage } from "../messages.js";
import type { DeniedCall, RunState } from "../state/run-state.js";
import type { RunLease } from "../state/run-store.js";
import type { StepRecord } from "../step-record.js";

/**
 * The state of one run while it runs. The loop appends to it; `messages` and `steps` only
 * grow, and every value appended is never changed again.
 */
export interface RunContext<Deps> {
  readonly options: ResolvedOptions<Deps>;
  readonly runId: string;
  readonly deps: Deps;
  readonly maxSteps: number;
  /**
   * Aborts when the caller aborts or the run is abandoned; tools get it. The run rejects the
   * moment it aborts; the loop checks it after every await, so nothing more runs or is emitted.
   */
  readonly signal: AbortSignal;
  readonly messages: Message[];
  readonly steps: StepRecord[];
  usage: Usage;
  /** Failures so far per tool name. */
  readonly retries: Map<string, number>;
  /** Calls to tools that were not callable so far, per tool name. */
  readonly unavailableCalls: Map<string, number>;
  /** Names of tools that executed successfully, in order. */
  readonly executed: string[];
  /** Calls a human refused in this run. */
  readonly denied: DeniedCall[];
  /** This process's lease on the run, when the loop has a store; every write carries it. */
  lease: RunLease | undefined;
  /** The record of the step in progress, for checkpoints; set while a step is open. */
  openStep: (() => StepRecord) | undefined;
  /** Hands an event to the listeners (and to `stream()`'s reader). */
  emit(event: LoopEvent): void;
  /** Whether anyone takes events now: hot paths skip building events nobody would get. */
  readonly listening: boolean;
  /**
   * Writes the run as it stands (status "running") to the loop's `RunStore`, in order after
   * the writes before it; resolves once written, rejects with `StoreError` if this write or an
   * earlier one failed. Resolves at once without a store.
   */
  checkpoint(): Promise<void>;
  /** Writes the run's final (or paused) state, sealed, to the store after every checkpoint; nothing without a store. */
  write(state: RunState): Promise<void>;
}
