import type { ToolContentPart } from "../types/messages.js";
import { isPromise } from "../util/maybe-promise.js";
import { type OpenCall, supplied } from "./call-record.js";
import { guardOutput, postDecisionEvent } from "./guard-output.js";
import type { RunContext } from "./run-context.js";
import type { ToolRun } from "./run-tool.js";
import type { OpenStep } from "./step.js";
import { resultEvent } from "./step.js";

/** A client-side call's result as `resume()` was given it (checked by `planResume`). */
export interface SuppliedResult<Deps> {
  open: OpenCall<Deps>;
  ok: boolean;
  /** The output (JSON), or, when not `ok`, the error text. */
  output: unknown;
  content?: ToolContentPart[] | undefined;
}

/**
 * Settles the client-side calls of a resumed step with the results given, in call order. Each
 * passes the post-call chain as an executed call's output does (replaced, withheld, or
 * stopping the run), then is recorded and its `tool-result` emitted. A failing hook withholds
 * that output and, once every given result is recorded, ends the run with its `HookError`.
 * Runs before any approved call starts, so a post-call stop leaves those unstarted.
 */
export async function settleSupplied<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  given: readonly SuppliedResult<Deps>[],
): Promise<void> {
  let failure: unknown;
  for (const { open, ok, output, content } of given) {
    const done: ToolRun = ok
      ? { kind: "ok", output, content, raw: output, ms: 0 }
      : { kind: "error", output: output as string, error: undefined, ms: 0 };
    const judged = guardOutput(run, step, open, done);
    const guarded = isPromise(judged) ? await judged : judged;
    supplied(open, guarded.ok, guarded.output, guarded.content);
    failure ??= guarded.failure;
    if (run.listening()) {
      if (guarded.outcome) run.emit(postDecisionEvent(run, step.index, open, guarded.outcome));
      run.emit(resultEvent(run, step.index, open.record, 0));
    }
  }
  if (failure !== undefined) throw failure;
}
