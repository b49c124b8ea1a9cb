import type { Message } from "../types/messages.js";
import type { UnsettledCall } from "../types/step-record.js";
import type { RunContext } from "./run-context.js";
import { transcriptOnFailure } from "./step.js";

/** What an aborted run had done when it was aborted, read with `abortedRunsOf(reason)`. */
export interface AbortedRun {
  readonly runId: string;
  /**
   * The transcript up to the abort, every tool call with its result: a call that had started
   * reads "outcome unknown", one that had not, "not run".
   */
  readonly messages: Message[];
  /** The calls that had started and not settled: their side effects are uncertain. */
  readonly unsettledCalls: UnsettledCall[];
}

/**
 * The runs each abort reason aborted, oldest first. Held by the reason (weakly): a reason is
 * the caller's value, often shared by several runs (the loop's own `signal`), so one run's
 * transcript cannot be a field of it.
 */
const byReason = new WeakMap<object, AbortedRun[]>();

/**
 * Notes what an aborted run had done under its abort reason (for `abortedRunsOf`), and adds
 * the calls that had started and not settled to the reason's `unsettledCalls` (when the reason
 * is an object that is not frozen; a reason shared by several runs collects the calls of each),
 * so the caller knows which side effects are uncertain.
 */
export function noteAbortedRun<Deps>(run: RunContext<Deps>, reason: unknown): void {
  if ((typeof reason !== "object" || reason === null) && typeof reason !== "function") return;
  const unsettledCalls = unsettledCallsOf(run);
  const aborted: AbortedRun = {
    runId: run.runId,
    messages: transcriptOnFailure(run, reason),
    unsettledCalls,
  };
  const runs = byReason.get(reason);
  if (runs) runs.push(aborted);
  else byReason.set(reason, [aborted]);
  if (unsettledCalls.length === 0 || Object.isFrozen(reason)) return;
  const holder = reason as { unsettledCalls?: UnsettledCall[] };
  holder.unsettledCalls = [...(holder.unsettledCalls ?? []), ...unsettledCalls];
}

/** The calls of the run's open step that had started and not settled. */
function unsettledCallsOf<Deps>(run: RunContext<Deps>): UnsettledCall[] {
  const open = run.stepInProgress?.();
  if (!open) return [];
  return open.calls
    .filter((call) => call.started)
    .map((call) => ({
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
    }));
}

/**
 * The runs an abort aborted, by the reason they rejected with (`error` in the `catch`): each
 * run's id, its transcript (`messages`) and its `unsettledCalls`. An aborted run rejects with
 * the signal's reason itself, which one signal may share among many runs, so what each run had
 * done is kept beside the reason rather than on it. Empty for anything else, and for a reason
 * that is not an object (`controller.abort("why")`: abort with an `Error`, or with no argument).
 *
 * @example
 * try {
 *   await loop.run(prompt, { signal, runId });
 * } catch (error) {
 *   const aborted = abortedRunsOf(error).find((run) => run.runId === runId);
 *   if (aborted) await save(aborted.messages, aborted.unsettledCalls);
 *   throw error;
 * }
 */
export function abortedRunsOf(reason: unknown): AbortedRun[] {
  if ((typeof reason !== "object" || reason === null) && typeof reason !== "function") return [];
  return [...(byReason.get(reason) ?? [])];
}
