import type { StopCondition } from "../types/stop-conditions.js";
import { closest, shownValue } from "../util/option-keys.js";

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
 * Stops the run after a step in which the model called any of the tools `names` (whatever the
 * gate decided for the call: a denied or blocked call counts too). Each name must be a tool of
 * the loop (or the final-answer tool of structured output in "tool" mode): a name no tool has
 * would never fire, so the loop refuses it (`TypeError`, with a did-you-mean).
 *
 * @example
 * new AgentLoop({ provider, tools, stopWhen: [hasToolCall("submit_report", "give_up")] });
 */
export function hasToolCall(...names: [string, ...string[]]): StopCondition {
  if (names.length === 0) throw new TypeError("hasToolCall(): give a tool name");
  names.forEach((name, index) => {
    if (typeof name !== "string" || name === "") {
      const which = names.length === 1 ? "" : ` (argument ${index + 1})`;
      throw new TypeError(
        `hasToolCall(): give a tool name${which}, got ${name === "" ? "an empty string" : shownValue(name)}`,
      );
    }
  });
  const wanted = Object.freeze([...new Set(names)]);
  const condition = named(
    `hasToolCall(${wanted.map((name) => JSON.stringify(name)).join(", ")})`,
    ({ steps }) =>
      (steps[steps.length - 1]?.calls ?? []).some((call) => wanted.includes(call.toolName)),
  );
  return Object.defineProperty(condition, TOOL_NAMES, { value: wanted });
}

/**
 * Where a built-in condition keeps the tool names it waits for, so the loop can refuse one no
 * tool has (not enumerable: the condition is still just a function).
 */
const TOOL_NAMES = Symbol("tollgate.stopWhen.toolNames");

/** The tool names a condition waits for (`hasToolCall`'s), or `undefined` for any other. */
function toolNamesOf(condition: StopCondition<any>): readonly string[] | undefined {
  return (condition as { [TOOL_NAMES]?: readonly string[] })[TOOL_NAMES];
}

/**
 * Refuses a `stopWhen` condition that waits for a tool the loop does not have (a typo that would
 * never fire): a `TypeError` naming the condition, the name and the nearest tool name. `known`
 * lists the loop's tools and the final-answer tool ("tool" mode); it is asked only when a
 * condition names tools. Custom conditions are not checked.
 */
export function checkStopNames(
  where: string,
  conditions: readonly StopCondition<any>[] | undefined,
  known: () => readonly string[],
): void {
  if (conditions === undefined) return;
  let names: readonly string[] | undefined;
  conditions.forEach((condition, index) => {
    const wanted = toolNamesOf(condition);
    if (wanted === undefined) return;
    names ??= known();
    const unknown = wanted.find((name) => !names!.includes(name));
    if (unknown === undefined) return;
    const near = closest(unknown, names);
    const hint = near === undefined ? "" : `did you mean ${JSON.stringify(near)}? `;
    const tools =
      names.length === 0
        ? "the loop has no tools"
        : `the tools are ${names.map((name) => JSON.stringify(name)).join(", ")}`;
    throw new TypeError(
      `${where}: \`stopWhen[${index}]\` ${condition.name} waits for a tool named ${JSON.stringify(unknown)}, which no tool of the loop has, so it would never stop the run; ${hint}${tools} (for a tool that only prepareStep offers, write your own condition)`,
    );
  });
}

/**
 * The tool names a `stopWhen` condition may wait for: the loop's tools, the final-answer tool,
 * and the tools of the agents the loop hands off to (`handed`).
 */
export function stopToolNames(
  tools: { names(): string[] },
  output: { readonly tool: { readonly name: string } | undefined } | undefined,
  handed: readonly string[] = [],
): readonly string[] {
  const names = handed.length === 0 ? tools.names() : [...new Set([...tools.names(), ...handed])];
  return output?.tool ? [...names, output.tool.name] : names;
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
      `${where}: \`stopWhen\` must be an array of functions (stepCountIs(n), hasToolCall(...names), or (context) => boolean)`,
    );
  }
  return Object.freeze(value.slice());
}
