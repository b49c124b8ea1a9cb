import type { LoopEvent } from "./events.js";
import type { ResolvedOptions } from "./loop-options.js";
import type { Message, Usage } from "./messages.js";
import type { DeniedCall } from "./run-state.js";
import type { StepRecord } from "./step-record.js";

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
  unavailableCalls: number;
  /** Names of tools that executed successfully, in order. */
  readonly executed: string[];
  /** Calls a human refused in this run. */
  readonly denied: DeniedCall[];
  /** The record of the step in progress, for checkpoints; set while a step is open. */
  openStep: (() => StepRecord) | undefined;
  /** Hands an event to the listeners (and to `stream()`'s reader). */
  emit(event: LoopEvent): void;
  /** Writes the run as it stands to the loop's `RunStore`; resolves once written. Only with a store. */
  checkpoint(): Promise<void>;
}
