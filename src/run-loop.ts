import type { LoopEvent } from "./events.js";
import { textOf } from "./messages.js";
import type { RunContext } from "./run-context.js";
import type { PendingApproval, RunResult, RunStatus } from "./run-result.js";
import { RUN_STATE_VERSION } from "./run-state.js";
import type { StepOutcome } from "./run-step.js";
import { runStep } from "./run-step.js";

/**
 * The agent loop: step after step until the model answers without tool calls, a hook stops
 * the run, a tool's result ends it, a call waits for approval, or the steps run out.
 * `first` replaces the first step (a resumed run settles its paused step there).
 */
export async function* runLoop<Deps>(
  run: RunContext<Deps>,
  first?: AsyncGenerator<LoopEvent, StepOutcome>,
): AsyncGenerator<LoopEvent, RunResult> {
  yield { type: "run-start", runId: run.runId, resumed: first !== undefined };
  let outcome = first ? yield* first : { kind: "continue" as const };
  while (outcome.kind === "continue" && run.steps.length < run.maxSteps) {
    outcome = yield* runStep(run);
  }
  const result = resultOf(run, outcome);
  yield {
    type: "run-finish",
    runId: run.runId,
    status: result.status,
    usage: result.usage,
    result,
  };
  return result;
}

const STATUS: Record<StepOutcome["kind"], RunStatus> = {
  continue: "max_steps",
  completed: "completed",
  stopped: "stopped",
  ended: "ended_by_tool",
  paused: "needs_approval",
};

function resultOf<Deps>(run: RunContext<Deps>, outcome: StepOutcome): RunResult {
  const status = STATUS[outcome.kind];
  const lastStep = run.steps[run.steps.length - 1];
  const lastAssistant = run.messages.findLast((message) => message.role === "assistant");
  const result: RunResult = {
    status,
    text: textOf(lastAssistant),
    messages: run.messages.slice(),
    steps: run.steps.slice(),
    usage: run.usage,
    finishReason: lastStep?.response.finishReason ?? "other",
    state: {
      version: RUN_STATE_VERSION,
      stateId: crypto.randomUUID(),
      runId: run.runId,
      status,
      messages: run.messages.slice(),
      steps: run.steps.slice(),
      usage: run.usage,
      maxSteps: run.maxSteps,
      retries: Object.fromEntries(run.retries),
      unavailableCalls: run.unavailableCalls,
      executed: run.executed.slice(),
    },
  };
  if (outcome.kind === "stopped" && outcome.reason !== undefined)
    result.stopReason = outcome.reason;
  if (outcome.kind === "ended") result.endedBy = outcome.endedBy;
  if (outcome.kind === "paused") {
    result.pending = pendingOf(run);
    if (outcome.endedBy) result.state.endedBy = outcome.endedBy;
  }
  return result;
}

function pendingOf<Deps>(run: RunContext<Deps>): PendingApproval[] {
  const calls = run.steps[run.steps.length - 1]?.calls ?? [];
  return calls
    .filter((call) => call.verdict === "needs-approval" && !call.result)
    .map((call) => {
      const pending: PendingApproval = {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        args: call.args,
      };
      if (call.reason !== undefined) pending.reason = call.reason;
      return pending;
    });
}
