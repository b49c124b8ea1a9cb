import type { Message, Usage } from "./messages.js";
import type { StepRecord } from "./step-record.js";
import { shownValue } from "./util/option-keys.js";

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

/**
 * Stops the run once it has taken `count` steps (or more: a resumed run counts its earlier steps).
 *
 * @example
 * new AgentLoop({ provider, tools, stopWhen: [stepCountIs(5)] });
 */
export function stepCountIs(count: number): StopCondition {
  if (!Number.isInteger(count) || count < 1) {
    throw new TypeError(`stepCountIs(): give a whole number >= 1, got ${shownValue(count)}`);
  }
  return named(`stepCountIs(${count})`, ({ steps }) => steps.length >= count);
}

/**
 * Stops the run after a step in which the model called the tool `name` (whatever the gate
 * decided for the call: a denied or blocked call counts too).
 *
 * @example
 * new AgentLoop({ provider, tools, stopWhen: [hasToolCall("submit_report")] });
 */
export function hasToolCall(name: string): StopCondition {
  if (typeof name !== "string" || name === "") {
    throw new TypeError("hasToolCall(): give a tool name");
  }
  return named(`hasToolCall(${JSON.stringify(name)})`, ({ steps }) =>
    (steps[steps.length - 1]?.calls ?? []).some((call) => call.toolName === name),
  );
}

function named(name: string, condition: StopCondition): StopCondition {
  return Object.defineProperty(condition, "name", { value: name });
}

/** Checks a `stopWhen` option (the loop's or a run's): an array of functions. */
export function checkStopWhen<Deps>(
  where: string,
  value: unknown,
): readonly StopCondition<Deps>[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "function") {
    throw new TypeError(
      `${where}: \`stopWhen\` is a list of conditions; write stopWhen: [yourCondition]`,
    );
  }
  if (!Array.isArray(value) || value.some((condition) => typeof condition !== "function")) {
    throw new TypeError(
      `${where}: \`stopWhen\` must be an array of functions (stepCountIs(n), hasToolCall(name), or (context) => boolean)`,
    );
  }
  return Object.freeze(value.slice());
}
