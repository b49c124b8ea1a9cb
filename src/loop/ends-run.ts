import type { Tool } from "../tools/tool.js";
import type { ToolCall } from "../types/messages.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, readBoolean } from "../util/policy-call.js";
import type { Succeeded } from "./execute-calls.js";
import type { RunContext } from "./run-context.js";

/**
 * Asks the policy's `endsRun` about each call that succeeded, in call order, and returns the
 * first call it says ends the run (none without `endsRun`).
 */
export function endsRun<Deps>(
  run: RunContext<Deps>,
  succeeded: readonly Succeeded<Deps>[],
  tools: readonly Tool<Deps>[],
  from = 0,
): MaybePromise<ToolCall | undefined> {
  const { policy } = run.options;
  const ask = policy.endsRun;
  if (!ask) return undefined;
  for (let index = from; index < succeeded.length; index++) {
    const { open, raw } = succeeded[index]!;
    const call = open.call!;
    const ends = callPolicy(
      "endsRun",
      call.name,
      () => ask.call(policy, { call, output: raw, tools: [...tools] }),
      readBoolean,
    );
    if (ends === true) return call;
    if (ends !== false) {
      return andThen(ends, (ended) => {
        run.abort.throwIfAborted();
        return ended ? call : endsRun(run, succeeded, tools, index + 1);
      });
    }
  }
  return undefined;
}
