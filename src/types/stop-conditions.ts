import type { Message, Usage } from "./messages.js";
import type { StepRecord } from "./step-record.js";

/** What a stop condition is asked about: the run so far, after one of its steps. */
export interface StopContext<Deps = unknown> {
  /** Every step so far, the one just finished last (copies: changing them changes nothing). */
  readonly steps: readonly StepRecord[];
  /** The transcript so far (a copy). */
  readonly messages: readonly Message[];
  /** Usage summed over the run so far. */
  readonly usage: Usage;
  readonly deps: Deps;
}

/**
 * A predicate over the run so far, checked after each step that would let the run go on
 * (`stopWhen`). `true` ends the run with status "stopped_by_condition"; anything but a boolean
 * (or a throw) rejects the run with `PolicyError`.
 */
export type StopCondition<Deps = unknown> = (
  context: StopContext<Deps>,
) => boolean | Promise<boolean>;

/** Which stop condition ended a run: its index in `stopWhen`, and its name when it has one. */
export interface StoppedBy {
  index: number;
  /** `stepCountIs(3)`, `hasToolCall("done")`, or a named function's name. */
  name?: string;
}
