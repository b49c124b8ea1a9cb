import type { PostCallOutcome } from "../gate/post-call.js";
import type { LoopEvent } from "../types/events.js";
import type { PostToolCallHook } from "../types/hooks.js";
import type { ToolContentPart } from "../types/messages.js";
import type { MaybePromise } from "../util/maybe-promise.js";
import { notRun, type OpenCall } from "./call-record.js";
import { notInstalled } from "./feature-slot.js";
import type { RunContext } from "./run-context.js";
import type { ToolRun } from "./run-tool.js";
import type { OpenStep } from "./step.js";
import { resultEvent } from "./step.js";

/** A call's result once the post-call chain judged it: what the model will read. */
export interface Guarded {
  ok: boolean;
  output: unknown;
  content: ToolContentPart[] | undefined;
  /** What the chain decided; absent when no chain ran (no `postToolCall`, or the final answer). */
  outcome?: PostCallOutcome;
  /** The `HookError` that ends the run: a hook threw or answered with something else than a verdict. */
  failure?: unknown;
}

/**
 * Runs an executed call's result through the loop's post-call chain before anything records
 * it: a replaced output is what the model reads; a blocked or stopped one is withheld (an
 * error result); a stop ends the run after the step (the first stopped call in call order
 * names it); a failing hook withholds the output and ends the run with its `HookError`. The
 * final-answer tool's call is the model's answer, not a tool's output: it is not guarded.
 * Synchronous while the hooks are. A loop with post-call hooks judges in `post-call-guard.ts`,
 * loaded with the step's other optional features.
 */
export function guardOutput<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  open: OpenCall<Deps>,
  done: Exclude<ToolRun, { kind: "paused" }>,
): MaybePromise<Guarded> {
  const ok = done.kind === "ok";
  const content = done.kind === "ok" ? done.content : undefined;
  const hooks = run.config.options.postHooks;
  if (hooks.length === 0 || open.tool === run.config.output?.tool) {
    return { ok, output: done.output, content };
  }
  if (!judgedOutput) throw notInstalled("the post-call judge");
  return judgedOutput(run, step, open, done, hooks);
}

/** The post-call chain's judge of an executed call's result (`post-call-guard.ts`). */
export type JudgedOutput = <Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  open: OpenCall<Deps>,
  done: Exclude<ToolRun, { kind: "paused" }>,
  hooks: readonly PostToolCallHook<Deps>[],
) => MaybePromise<Guarded>;

let judgedOutput: JudgedOutput | undefined;

/** Installs the post-call chain's judge (`step-features.ts`, once loaded). */
export function installJudgedOutput(judge: JudgedOutput): void {
  judgedOutput = judge;
}

/** The `tool-post-decision` event of a call whose result the post-call chain judged. */
export function postDecisionEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  open: OpenCall<Deps>,
  outcome: PostCallOutcome,
): LoopEvent {
  const event: LoopEvent = {
    type: "tool-post-decision",
    runId: run.runId,
    step,
    toolCallId: open.record.toolCallId,
    toolName: open.record.toolName,
    verdict: outcome.kind,
    by: outcome.by,
  };
  if (outcome.kind === "block") event.reason = outcome.message;
  if (outcome.kind === "stop" && outcome.reason !== undefined) event.reason = outcome.reason;
  return event;
}

/**
 * A step a post-call hook stopped: every call still without a result — not started, waiting
 * for approval, waiting on a paused sub-agent — gets "not run: the run was stopped (reason)",
 * as a pre-call stop gives them, so each call of the step has exactly one result.
 */
export function closeStoppedStep<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>): void {
  const { stop } = step;
  if (!stop) return;
  const note = stop.reason === undefined ? "" : ` (${stop.reason})`;
  for (const open of step.calls) {
    if (open.record.result) continue;
    notRun(open, `not run: the run was stopped${note}`);
    if (run.listening()) run.emit(resultEvent(run, step.index, open.record, 0));
  }
}
