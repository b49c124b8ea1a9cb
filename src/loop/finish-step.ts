import { messageOf } from "../errors.js";
import type { StoppedBy } from "../options/stop-conditions.js";
import { errorResult } from "../tools/tool-output.js";
import type { Message, ToolCall, ToolResult } from "../types/messages.js";
import type { ReachedLimit } from "../util/usage-limits.js";
import type { Stop } from "./gate-calls.js";
import { type OpenStep, recordOf } from "./open-step.js";
import type { RunContext } from "./run-context.js";

/** How a step ended, for the loop to decide what comes next. */
export type StepOutcome =
  | { kind: "continue" }
  | { kind: "completed"; output?: { value: unknown } }
  | { kind: "stopped"; reason?: string }
  | { kind: "ended"; endedBy: ToolCall }
  | { kind: "paused"; endedBy?: ToolCall }
  | { kind: "limit"; limit: ReachedLimit }
  | { kind: "condition"; stoppedBy: StoppedBy };

/**
 * Closes the step: writes its tool message (every call's result, in call order) unless calls
 * still wait for approval, records the step, emits `step-finish`, and says how it ended: the
 * model answered without calls, a hook stopped the run, a usage limit stopped a call, a call
 * ended it, calls wait for approval, or the loop goes on.
 */
export function finishStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  how: Ending = {},
): StepOutcome {
  const outcome = outcomeOf(step, how);
  if (step.calls.length > 0 && outcome.kind !== "paused") {
    run.messages.push(toolMessage(step.calls.map((open) => open.record.result!)));
  }
  const record = recordOf(step);
  run.openStep = undefined;
  run.steps.push(record);
  if (run.listening())
    run.emit({ type: "step-finish", runId: run.runId, step: step.index, record });
  return outcome;
}

/** What ended a step with calls: a hook's stop, a usage limit, or a call whose result ends the run. */
interface Ending {
  /** A pre-call hook's stop, or a post-call hook's (`OpenStep.stop`). */
  stop?: Pick<Stop, "reason"> | undefined;
  limit?: ReachedLimit | undefined;
  endedBy?: ToolCall | undefined;
}

function outcomeOf<Deps>(step: OpenStep<Deps>, { stop, limit, endedBy }: Ending): StepOutcome {
  if (step.calls.length === 0) return { kind: "completed" };
  if (stop)
    return stop.reason === undefined
      ? { kind: "stopped" }
      : { kind: "stopped", reason: stop.reason };
  if (limit) return { kind: "limit", limit };
  if (step.calls.some((open) => !open.record.result)) {
    return endedBy ? { kind: "paused", endedBy } : { kind: "paused" };
  }
  return endedBy ? { kind: "ended", endedBy } : { kind: "continue" };
}

/**
 * The transcript an error that ends a run carries: the run's messages, and when they end with
 * an assistant message whose calls have no results yet (the run failed mid-step, or while
 * writing a paused state), a tool message for it — each call's result where it has one, else
 * "outcome unknown" for a call that had started (an abort does not wait for it), else "not
 * run" — so every tool call still has exactly one result.
 */
export function transcriptOnFailure<Deps>(run: RunContext<Deps>, error: unknown): Message[] {
  const messages = run.messages.slice();
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return messages;
  const parts = last.parts.filter((part) => part.type === "tool-call");
  if (parts.length === 0) return messages;
  const calls = run.openStep?.().calls ?? run.steps[run.steps.length - 1]?.calls ?? [];
  const results = parts.map((part) => {
    const call = calls.find((call) => call.toolCallId === part.id);
    if (call?.result) return call.result;
    const what = call?.started
      ? "outcome unknown: the run failed while this call ran"
      : "not run: the run failed";
    return errorResult(part.id, part.name, `${what} (${messageOf(error)})`);
  });
  messages.push(toolMessage(results));
  return messages;
}

/** The tool message of a step: every call's result, in call order. */
function toolMessage(results: ToolResult[]): Message {
  return { role: "tool", results };
}
