import type { ResumePlan } from "../state/resume/resolutions.js";
import { canonicalJson } from "../util/canonical-json.js";
import {
  approved,
  continued,
  errorText,
  notRun,
  type OpenCall,
  refused,
  rerun,
  restored,
} from "./call-record.js";
import { executeCalls } from "./execute-calls.js";
import type { RunContext } from "./run-context.js";
import { callDenied, decisionRemembered } from "./run-record.js";
import { afterExecution } from "./run-step.js";
import type { StepOutcome } from "./step.js";
import { decisionEvent, reopenStep, resultEvents } from "./step.js";
import { type SuppliedResult, settleSupplied } from "./supplied-results.js";

/**
 * The first step of a resumed run: the paused (or running) state's open step, finished. The
 * humans' decisions and the checkpoint's leftovers are applied (each checked by `planResume`
 * before anything ran) → the approved and not-yet-run calls execute, and calls that waited on
 * a paused sub-agent continue its run, client-side calls settle with the results given, through
 * the post-call chain (they are not executions here: not in `executed`, not asked of
 * `endsRun`) → `endsRun` is asked
 * (unless a call of the step ended the run before it paused) → the step is finished.
 */
export async function resumeStep<Deps>(
  run: RunContext<Deps>,
  plan: ResumePlan,
): Promise<StepOutcome> {
  const { state, resolutions } = plan;
  const record = state.steps[state.steps.length - 1]!;
  const { tools } = run.config.options;
  const outputTool = run.config.output?.tool;
  const toolOf = (name: string) => (name === outputTool?.name ? outputTool : tools.find(name));
  const calls = record.calls.map((call) => restored(call, toolOf(call.toolName)));
  const step = reopenStep(run, record, calls);
  const byId = new Map(calls.map((open) => [open.record.toolCallId, open]));
  const decided: OpenCall<Deps>[] = [];
  const toRun: OpenCall<Deps>[] = [];
  const given: SuppliedResult<Deps>[] = [];
  for (const resolution of resolutions) {
    const open = byId.get(resolution.toolCallId)!;
    switch (resolution.kind) {
      case "refuse": {
        refused(open, resolution.reason, errorText(run.config.options.formatToolError));
        const { toolName, args } = open.record;
        const { reason } = resolution;
        callDenied(run, {
          toolName,
          args: canonicalJson(args),
          ...(reason === undefined ? {} : { reason }),
        });
        if (resolution.remember) remember(run, toolName, false, reason);
        decided.push(open);
        run.emit(decisionEvent(run, step.index, open));
        break;
      }
      case "unknown":
        notRun(open, "outcome unknown: the process stopped while this call ran");
        decided.push(open);
        break;
      case "approve":
        approved(open, resolution.args, resolution.edited, resolution.parsed);
        if (resolution.remember) remember(run, open.record.toolName, true, undefined);
        toRun.push(open);
        run.emit(decisionEvent(run, step.index, open));
        break;
      case "rerun":
        rerun(open, resolution.parsed);
        toRun.push(open);
        break;
      case "sub-run":
        continued(open, resolution.parsed, resolution.plan);
        toRun.push(open);
        break;
      case "result":
        given.push({ open, ok: true, output: resolution.output, content: resolution.content });
        break;
      case "result-error":
        given.push({ open, ok: false, output: resolution.error });
    }
  }
  resultEvents(run, step.index, decided);
  if (given.length > 0) await settleSupplied(run, step, given);
  const succeeded = await executeCalls(run, step, toRun);
  return afterExecution(run, step, succeeded, { endedBy: state.endedBy });
}

/** A human's decision kept for every later call of the tool in this run (`remember: "tool"`). */
function remember<Deps>(
  run: RunContext<Deps>,
  toolName: string,
  approve: boolean,
  reason: string | undefined,
): void {
  decisionRemembered(
    run,
    reason === undefined ? { toolName, approve } : { toolName, approve, reason },
  );
}
