import type { UnsettledCall } from "../step-record.js";
import type { RunContext } from "./run-context.js";

/**
 * When a run is aborted while tools run, adds the calls that had started and not settled to
 * the abort reason's `unsettledCalls` (when the reason is an object; a reason shared by
 * several runs collects the calls of each), so the caller knows which side effects are
 * uncertain.
 */
export function noteUnsettledCalls<Deps>(run: RunContext<Deps>, reason: unknown): void {
  if (typeof reason !== "object" || reason === null || Object.isFrozen(reason)) return;
  const open = run.openStep?.();
  if (!open) return;
  const unsettled: UnsettledCall[] = open.calls
    .filter((call) => call.started)
    .map((call) => ({
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
    }));
  if (unsettled.length === 0) return;
  const holder = reason as { unsettledCalls?: UnsettledCall[] };
  holder.unsettledCalls = [...(holder.unsettledCalls ?? []), ...unsettled];
}
