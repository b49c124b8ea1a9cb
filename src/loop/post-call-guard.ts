import { type PostCallOutcome, postCall } from "../gate/post-call.js";
import type { PostToolCallHook } from "../types/hooks.js";
import { isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { errorText, type OpenCall } from "./call-record.js";
import type { Guarded } from "./guard-output.js";
import type { RunContext } from "./run-context.js";
import type { ToolRun } from "./run-tool.js";
import type { OpenStep } from "./step.js";

/**
 * An executed call's result judged by the loop's post-call chain (`guardOutput` asks, for a
 * loop with post-call hooks): a replaced output is what the model reads; a blocked or stopped
 * one is withheld (an error result); a stop ends the run after the step (the first stopped
 * call in call order names it); a failing hook withholds the output and ends the run with its
 * `HookError`. Synchronous while the hooks are.
 */
export function judgedOutput<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  open: OpenCall<Deps>,
  done: Exclude<ToolRun, { kind: "paused" }>,
  hooks: readonly PostToolCallHook<Deps>[],
): MaybePromise<Guarded> {
  const ok = done.kind === "ok";
  const content = done.kind === "ok" ? done.content : undefined;
  const { toolName } = open.record;
  const withheld = (why: string) => `the output of ${toolName} was withheld: ${why}`;
  const hookFailed = (error: unknown): Guarded => ({
    ok: false,
    output: withheld("a post-call hook failed"),
    content: undefined,
    failure: error,
  });
  const judged = (outcome: PostCallOutcome): Guarded => {
    switch (outcome.kind) {
      case "pass":
      case "output":
        return { ok, output: outcome.output, content: outcome.content, outcome };
      case "block": {
        // The text the model reads for a withheld output is the loop's formatToolError's too
        // (kind "withheld": the tool ran, unlike every other kind).
        const { toolName: name } = open.record;
        const info = { kind: "withheld" as const, toolName: name, message: outcome.message };
        const output = errorText(run.config.options.formatToolError)(info);
        return { ok: false, output, content: undefined, outcome };
      }
      case "stop": {
        const index = step.calls.indexOf(open);
        if (!step.stop || index < step.stop.call) {
          step.stop = { by: outcome.by, call: index };
          if (outcome.reason !== undefined) step.stop.reason = outcome.reason;
        }
        const note = outcome.reason === undefined ? "" : ` (${outcome.reason})`;
        return {
          ok: false,
          output: withheld(`the run was stopped${note}`),
          content: undefined,
          outcome,
        };
      }
    }
  };
  let outcome: MaybePromise<PostCallOutcome>;
  try {
    outcome = postCall({
      call: open.call!,
      result: { output: done.output, isError: !ok, content },
      step: step.index,
      hooks,
      deps: run.config.deps,
      // The step's own provider, when prepareStep chose one: hooks see who answered.
      provider: step.steered?.provider ?? run.config.options.provider,
    });
  } catch (error) {
    return hookFailed(error);
  }
  if (!isPromise(outcome)) return judged(outcome);
  return outcome.then(
    (answer) => {
      run.abort.throwIfAborted();
      return judged(answer);
    },
    (error: unknown) => {
      run.abort.throwIfAborted();
      return hookFailed(error);
    },
  );
}
