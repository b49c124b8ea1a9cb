import { approvalDigest } from "./digest.js";
import { TollgateError } from "./errors.js";
import { textOf } from "./messages.js";
import type { StepOutcome } from "./open-step.js";
import type { RunContext } from "./run-context.js";
import type { RunResult } from "./run-result.js";
import type { RunState, RunStatus } from "./run-state.js";
import { signatureOf } from "./run-state.js";
import { runStep } from "./run-step.js";
import { snapshot } from "./snapshot.js";
import type { PendingApproval } from "./step-record.js";

/**
 * The agent loop: step after step until the model answers without tool calls, a hook stops
 * the run, a tool's result ends it, a call waits for approval, or the steps run out.
 * `first` replaces the first step (a resumed run settles its paused step there).
 */
export async function runLoop<Deps>(
  run: RunContext<Deps>,
  first?: () => Promise<StepOutcome>,
): Promise<RunResult> {
  run.emit({ type: "run-start", runId: run.runId, resumed: first !== undefined });
  let outcome: StepOutcome = { kind: "continue" };
  try {
    if (first) outcome = await first();
    while (outcome.kind === "continue" && run.steps.length < run.maxSteps) {
      outcome = await runStep(run);
    }
  } catch (error) {
    // Errors from between steps (prepareStep, say) carry the transcript too.
    if (error instanceof TollgateError && !error.messages) error.messages = run.messages.slice();
    throw error;
  }
  const result = await resultOf(run, outcome);
  run.signal.throwIfAborted();
  run.emit({
    type: "run-finish",
    runId: run.runId,
    status: result.status,
    usage: result.usage,
    result,
  });
  return result;
}

const STATUS: Record<StepOutcome["kind"], RunStatus> = {
  continue: "max_steps",
  completed: "completed",
  stopped: "stopped",
  ended: "ended_by_tool",
  paused: "needs_approval",
};

async function resultOf<Deps>(run: RunContext<Deps>, outcome: StepOutcome): Promise<RunResult> {
  const status = STATUS[outcome.kind];
  const lastStep = run.steps[run.steps.length - 1];
  const lastAssistant = run.messages.findLast((message) => message.role === "assistant");
  const pending = outcome.kind === "paused" ? await pendingOf(run) : undefined;
  const endedBy =
    outcome.kind === "paused" || outcome.kind === "ended" ? outcome.endedBy : undefined;
  const state = await sealed(
    run,
    snapshot(run, status, { ...(pending && { pending }), ...(endedBy && { endedBy }) }),
  );
  const result: RunResult = {
    status,
    text: textOf(lastAssistant),
    messages: run.messages.slice(),
    steps: run.steps.slice(),
    usage: run.usage,
    finishReason: lastStep?.response.finishReason ?? "other",
    state,
  };
  if (outcome.kind === "stopped" && outcome.reason !== undefined)
    result.stopReason = outcome.reason;
  if (outcome.kind === "ended") result.endedBy = outcome.endedBy;
  if (pending) result.pending = pending;
  await run.options.store?.put(state);
  return result;
}

/** Signs a state when the loop has a signing key. */
export async function sealed<Deps>(run: RunContext<Deps>, state: RunState): Promise<RunState> {
  const key = run.options.signingKey;
  if (key !== undefined) state.signature = await signatureOf(state, key);
  return state;
}

/** The calls of the paused step that wait for a decision, each with its approval digest. */
async function pendingOf<Deps>(run: RunContext<Deps>): Promise<PendingApproval[]> {
  const calls = run.steps[run.steps.length - 1]?.calls ?? [];
  const waiting = calls.filter((call) => call.verdict === "needs-approval" && !call.result);
  return Promise.all(
    waiting.map(async (call) => {
      const digest = await approvalDigest(run.runId, call.toolCallId, call.toolName, call.args);
      const pending: PendingApproval = {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args: call.args,
        digest,
      };
      if (call.reason !== undefined) pending.reason = call.reason;
      return pending;
    }),
  );
}
