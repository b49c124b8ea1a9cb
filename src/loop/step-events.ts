import type { LoopEvent } from "../types/events.js";
import type { ToolResult } from "../types/messages.js";
import type { CallRecord } from "../types/step-record.js";
import type { OpenCall } from "./call-record.js";
import type { RunContext } from "./run-context.js";

/** `tool-result` events for the calls that already have a result, in call order. */
export function resultEvents<Deps>(
  run: RunContext<Deps>,
  step: number,
  calls: readonly OpenCall<Deps>[],
): void {
  if (!run.listening()) return;
  for (const open of calls)
    if (open.record.result) run.emit(resultEvent(run, step, open.record, 0));
}

/** The `tool-result` event of a call that has its result. */
export function resultEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  record: CallRecord,
  ms: number,
): LoopEvent {
  const result = record.result as ToolResult;
  return {
    type: "tool-result",
    runId: run.runId,
    step,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    output: result.output,
    isError: result.isError,
    ms,
  };
}

/** The `tool-error` event of a call whose tool threw (or returned a value JSON cannot carry). */
export function errorEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  record: CallRecord,
  error: unknown,
): LoopEvent {
  const event: LoopEvent = {
    type: "tool-error",
    runId: run.runId,
    step,
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    error,
  };
  const stack = stackOf(error);
  if (stack !== undefined) event.stack = stack;
  return event;
}

/** An error's stack, when it has one as text; never throws (a getter may). */
function stackOf(error: unknown): string | undefined {
  try {
    const stack = (error as { stack?: unknown } | null)?.stack;
    return typeof stack === "string" ? stack : undefined;
  } catch {
    return undefined;
  }
}

/** The `tool-decision` event of a call the gate (or a human) decided. */
export function decisionEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  open: OpenCall<Deps>,
): LoopEvent {
  const { record } = open;
  const event: LoopEvent = {
    type: "tool-decision",
    runId: run.runId,
    step,
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    verdict: record.verdict,
    by: record.by,
  };
  if (open.call) event.call = open.call;
  if (record.reason !== undefined) event.reason = record.reason;
  return event;
}
