import type { StopCondition } from "../types/stop-conditions.js";
import { shownValue } from "../util/option-keys.js";

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
