import type { LoopEvent } from "../events.js";
import type { ToolResult } from "../messages.js";
import type { CallRecord } from "../step-record.js";
import type { CallSlot, OpenStep } from "./open-step.js";
import type { RunContext } from "./run-context.js";

/** `tool-result` events for the calls that already have a result, in call order. */
export function resultEvents<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  slots: CallSlot<Deps>[],
): void {
  if (!run.listening) return;
  for (const slot of slots)
    if (slot.record.result) run.emit(resultEvent(run, step.index, slot.record, 0));
}

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

export function decisionEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  slot: CallSlot<Deps>,
): LoopEvent {
  const { record } = slot;
  const event: LoopEvent = {
    type: "tool-decision",
    runId: run.runId,
    step,
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    verdict: record.verdict,
    by: record.by,
  };
  if (slot.call) event.call = slot.call;
  if (record.reason !== undefined) event.reason = record.reason;
  return event;
}
