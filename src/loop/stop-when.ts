import { freezeJson } from "../tools/args.js";
import type { StopContext, StoppedBy } from "../types/stop-conditions.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, readBoolean } from "../util/policy-call.js";
import type { RunContext } from "./run-context.js";

/**
 * After a step that would let the run go on: the first of the run's `stopWhen` conditions
 * that answers `true`, asked in order, else `undefined`. A condition that throws or answers
 * anything but a boolean is a `PolicyError` (`callback` "stopWhen[i]"). Synchronous while the
 * conditions are.
 */
export function stoppedByCondition<Deps>(
  run: RunContext<Deps>,
  index = 0,
): MaybePromise<StoppedBy | undefined> {
  const conditions = run.config.stopWhen;
  if (index >= conditions.length) return undefined;
  const condition = conditions[index]!;
  const answer = callPolicy(
    `stopWhen[${index}]`,
    undefined,
    () => condition(contextOf(run)),
    readBoolean,
  );
  return andThen(answer, (stop) => {
    run.abort.throwIfAborted();
    if (!stop) return stoppedByCondition(run, index + 1);
    const { name } = condition;
    return typeof name === "string" && name !== "" ? { index, name } : { index };
  });
}

/** The run so far, as conditions see it: frozen copies, made only when a condition reads them. */
function contextOf<Deps>(run: RunContext<Deps>): StopContext<Deps> {
  // Records and messages are never changed once appended: the lists as they are now, copied
  // deeply only when read.
  const stepsNow = run.steps.slice();
  const messagesNow = run.messages.slice();
  let steps: StopContext["steps"] | undefined;
  let messages: StopContext["messages"] | undefined;
  return {
    get steps() {
      steps ??= freezeJson(structuredClone(stepsNow));
      return steps;
    },
    get messages() {
      messages ??= freezeJson(structuredClone(messagesNow));
      return messages;
    },
    usage: Object.freeze({ ...run.usage }),
    deps: run.config.deps,
  };
}
