import { TollgateError } from "../errors.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { withLazyState } from "../state/lazy-state.js";
import type { ResumePlan } from "../state/resume/resolutions.js";
import { isPaused } from "../state/run-state.js";
import { sealState } from "../state/seal-state.js";
import { endedRunData, snapshot } from "../state/snapshot.js";
import type { RunResult, RunResultBase } from "../types/run-result.js";
import type { RunState, RunStatus } from "../types/run-state.js";
import type { StepRecord } from "../types/step-record.js";
import { isPromise } from "../util/maybe-promise.js";
import { textOf } from "../util/message-text.js";
import { handOff } from "./hand-off.js";
import { resumeStep } from "./resume-step.js";
import type { RunContext } from "./run-context.js";
import { takeModelCall } from "./run-record.js";
import { runStep } from "./run-step.js";
import type { StepOutcome } from "./step.js";
import { transcriptOnFailure } from "./step.js";
import { stoppedByCondition } from "./stop-when.js";

/**
 * The agent loop: step after step until the model answers without tool calls, a hook stops
 * the run, a tool's result ends it, a call waits for approval, a usage limit is reached (checked
 * before each model call, and before each tool runs), a `stopWhen` condition answers true
 * (asked after each step that lets the run go on), or the steps run out.
 * A resumed run (given its checked `plan`) first finishes its paused step (`resumeStep`).
 */
export async function runLoop<Deps>(run: RunContext<Deps>, plan?: ResumePlan): Promise<RunResult> {
  run.emit({ type: "run-start", runId: run.runId, resumed: plan !== undefined });
  let outcome: StepOutcome = { kind: "continue" };
  let result: RunResult;
  try {
    if (plan) {
      const loading = stepFeaturesLoading(run.config.options);
      if (loading) await loaded(run, loading);
      outcome = await resumeStep(run, plan);
    }
    let stepped = plan !== undefined;
    while (outcome.kind === "continue") {
      // A handoff of the step just closed: the next step is its target's.
      if (outcome.handoff) await handOff(run, outcome.handoff);
      if (stepped) {
        // After each step that lets the run go on: the stopWhen conditions, in order.
        const asked = stoppedByCondition(run);
        const stoppedBy = isPromise(asked) ? await asked : asked;
        if (stoppedBy) outcome = { kind: "condition", stoppedBy };
      }
      if (outcome.kind !== "continue" || run.steps.length >= run.maxSteps) break;
      // prepareStep and the model and post-call hooks load with the first step that has them
      // (this loop's, or a handoff target's).
      const loading = stepFeaturesLoading(run.config.options);
      if (loading) await loaded(run, loading);
      const limit = takeModelCall(run);
      outcome = limit ? { kind: "limit", limit } : await runStep(run);
      stepped = true;
    }
    result = await resultOf(run, outcome);
  } catch (error) {
    // Errors from between steps (prepareStep, say), or writing the final state, carry the
    // transcript too.
    if (error instanceof TollgateError && !error.messages) {
      error.messages = transcriptOnFailure(run, error);
    }
    throw error;
  }
  run.abort.throwIfAborted();
  run.emit({
    type: "run-finish",
    runId: run.runId,
    status: result.status,
    usage: result.usage,
    result,
  });
  return result;
}

let installed = false;
let installing: Promise<void> | undefined;

/**
 * Loads and installs the step's optional features (`step-features.ts`) when the run's options
 * use one (`prepareStep`, model hooks, post-call hooks) and they are not installed yet;
 * `undefined` when there is nothing to load. Asked before a resumed run's paused step and before
 * each step, so a handoff's target that uses one has them too.
 */
function stepFeaturesLoading(options: ResolvedOptions<any>): Promise<void> | undefined {
  if (installed) return undefined;
  if (!options.policy.prepareStep && !options.modelHooks && options.postHooks.length === 0) {
    return undefined;
  }
  installing ??= import("./step-features.js").then(
    (features) => {
      features.installStepFeatures();
      installed = true;
    },
    (error: unknown) => {
      installing = undefined; // the next run tries again
      throw error;
    },
  );
  return installing;
}

/** Waits for the step's optional features to load; nothing more runs if the run aborted meanwhile. */
async function loaded<Deps>(run: RunContext<Deps>, loading: Promise<void>): Promise<void> {
  await loading;
  run.abort.throwIfAborted();
}

const STATUS: Record<StepOutcome["kind"], RunStatus> = {
  continue: "max_steps",
  completed: "completed",
  stopped: "stopped",
  ended: "ended_by_tool",
  paused: "needs_approval",
  limit: "limit_reached",
  condition: "stopped_by_condition",
};

async function resultOf<Deps>(run: RunContext<Deps>, outcome: StepOutcome): Promise<RunResult> {
  const lastStep = run.steps[run.steps.length - 1];
  const status = outcome.kind === "paused" ? pausedStatus(lastStep) : STATUS[outcome.kind];
  const lastAssistant = run.messages.findLast((message) => message.role === "assistant");
  const endedBy =
    outcome.kind === "paused" || outcome.kind === "ended" ? outcome.endedBy : undefined;
  const { store, signingKey } = run.config.options;
  // A finished run that nothing writes or signs has no calls to list: its state is taken when
  // first read (sealState would add nothing to it), from the run's data alone. Not with a
  // listener (or stream()): the run-finish event's copy of the result reads it at once.
  const lazy =
    store === undefined && signingKey === undefined && !isPaused(status) && !run.listening();
  const extras = endedBy && { endedBy };
  const state = lazy ? undefined : await sealState(snapshot(run, status, extras), signingKey);
  const base = {
    text: textOf(lastAssistant),
    messages: run.messages.slice(),
    steps: run.steps.slice(),
    usage: run.usage,
    finishReason: lastStep?.response.finishReason ?? "other",
  } as RunResultBase;
  if (state) base.state = state;
  if (run.agent !== undefined) base.agent = run.agent;
  if (!state) {
    const data = endedRunData(run);
    return withLazyState(withStatus(base, outcome, undefined), () =>
      snapshot(data, status, extras),
    );
  }
  await run.write(state);
  return withStatus(base, outcome, state);
}

/**
 * A paused step's status: `needs_approval` while any call waits for a human (its own, or a
 * sub-run's), even when client-side calls wait for their results too (the result lists both);
 * `needs_results` when only client-side calls wait.
 */
function pausedStatus(step: StepRecord | undefined): RunStatus {
  const approving = step?.calls.some(
    (call) => !call.result && (call.verdict === "needs-approval" || call.subRun),
  );
  return approving ? "needs_approval" : "needs_results";
}

/** The result for how the run ended: each status with its own fields. */
function withStatus(
  base: RunResultBase,
  outcome: StepOutcome,
  state: RunState | undefined,
): RunResult {
  switch (outcome.kind) {
    case "stopped":
      return outcome.reason === undefined
        ? { status: "stopped", ...base }
        : { status: "stopped", ...base, stopReason: outcome.reason };
    case "ended":
      return { status: "ended_by_tool", ...base, endedBy: outcome.endedBy };
    case "paused": {
      if (!state) throw new Error("tollgate: a paused run's result is made with its state");
      const external = state.external ? { external: state.external.slice() } : {};
      return state.status === "needs_results"
        ? { status: "needs_results", ...base, external: state.external?.slice() ?? [] }
        : { status: "needs_approval", ...base, pending: state.pending?.slice() ?? [], ...external };
    }
    case "completed":
      return { status: "completed", ...base, output: outcome.output?.value };
    case "continue":
      return { status: "max_steps", ...base };
    case "limit":
      return { status: "limit_reached", ...base, limit: outcome.limit };
    case "condition":
      return { status: "stopped_by_condition", ...base, stoppedBy: outcome.stoppedBy };
  }
}
