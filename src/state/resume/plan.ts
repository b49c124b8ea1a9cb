// From the core's entry (core.ts), not errors.ts: so this lazy module reaches the whole core.
import { ResumeError } from "../../core.js";
import { isPaused, stateDigestOf } from "../run-state.js";
import { stateProblem } from "../state-check.js";
import { withResults } from "../stored-steps.js";
import { waitingCalls } from "../sub-runs.js";
import { checkDecisions, routeDecisions } from "./decisions.js";
import type { CallSettings } from "./edited-args.js";
import { checkCalls, checkListedCalls, checkOpenStep, checkRemembered } from "./paused-step.js";
import { checkDigest, type Resolution, type ResumePlan, resolve } from "./resolutions.js";
import { privateCopy, type StateSource, type TrustSettings, trustOf } from "./trust.js";
import { migrate, type StateMigrations } from "./upgrades.js";

/** What of the loop's options a resume is checked against: each concern's, in one object. */
export interface ResumeSettings<Deps> extends TrustSettings, CallSettings<Deps> {
  stateMigrations: StateMigrations;
}

/**
 * Checks everything about a state and its decisions before anything runs, on a private copy
 * of the state: trust (signature, digests, the store, or `trustState`), version (migrating
 * older ones), the whole state against its schema, status, a well-formed decision for every
 * pending call and none for other ids, digests, tools present, args valid. Throws
 * `ResumeError` saying what is wrong and how to fix it.
 */
export async function planResume<Deps>(
  options: ResumeSettings<Deps>,
  given: unknown,
  source: StateSource,
  decisions: unknown,
): Promise<ResumePlan> {
  const copy = privateCopy(given);
  const byDigest = await trustOf(options, copy, source, decisions);
  let digest: Promise<string> | undefined;
  const stateDigest = () => (digest ??= stateDigestOf(copy)); // of the state as given, before migration
  const state = migrate(options.stateMigrations, structuredClone(copy));
  const problem = stateProblem(state);
  if (problem !== undefined) throw new ResumeError(`the state is damaged at ${problem}`);
  if (!isPaused(state.status) && state.status !== "running") {
    throw new ResumeError(
      `nothing to resume: run ${state.runId} ended with status "${state.status}"`,
    );
  }
  const unlinked = withResults(state);
  if (unlinked !== undefined) throw new ResumeError(`the state is damaged at ${unlinked}`);
  if (state.parent && source !== "parent") {
    throw new ResumeError(
      `this state is the paused sub-run of call ${state.parent.toolCallId} in run ${state.parent.runId}: it resumes only with its parent; resume the parent's state`,
    );
  }
  if (byDigest && !isPaused(state.status)) {
    throw new ResumeError(
      `a state passed by value resumes by digests only when it is paused (this one is "${state.status}"); resume it from the store by its runId`,
    );
  }
  const open = state.steps[state.steps.length - 1];
  if (!open) throw new ResumeError("the state has no open step to resume");
  checkOpenStep(state, open);
  checkCalls(state, open);
  checkListedCalls(state);
  const checked = checkDecisions(decisions as Record<string, unknown>);
  // Every key names a waiting call, here or in a sub-run; a sub-run's are checked against this state.
  const routed = routeDecisions(waitingCalls(state), checked);
  for (const { call, decision } of routed.forSubRuns) {
    await checkDigest(state, stateDigest, call.key, call.record, decision);
  }
  const resolutions: Resolution[] = [];
  for (const record of open.calls) {
    if (record.result) continue;
    if (record.verdict !== "needs-approval" && !record.subRun && !record.external && byDigest) {
      throw new ResumeError(
        `call ${record.toolCallId} has verdict "${record.verdict}" and no result, which a paused state never has; the state is damaged`,
      );
    }
    resolutions.push(await resolve(options, state, stateDigest, record, routed));
  }
  checkRemembered(state, open, resolutions);
  return { state, resolutions };
}

/** The paused sub-runs a plan continues, at any depth: each state is claimed once, with its parent's. */
export function subRunStateIds(plan: ResumePlan): string[] {
  return plan.resolutions.flatMap((resolution) =>
    resolution.kind === "sub-run"
      ? [resolution.plan.state.stateId, ...subRunStateIds(resolution.plan)]
      : [],
  );
}
