import { ToolExecutionError, ToolRetriesExceededError } from "./errors.js";
import type { LoopEvent } from "./events.js";
import type { Execution, Settled } from "./execute-calls.js";
import { executeCalls } from "./execute-calls.js";
import type { ToolCall } from "./messages.js";
import type { CallSlot, OpenStep, StepOutcome } from "./open-step.js";
import { finishStep } from "./open-step.js";
import type { RunContext } from "./run-context.js";
import { resultEvent } from "./step-events.js";
import type { UnsettledCall } from "./step-record.js";
import type { Tool } from "./tool.js";
import { errorResult, okResult } from "./tool-output.js";

/**
 * Phase two and the end of the step: runs the executions, asks `endsRun`, then writes the
 * step's tool message — or pauses when calls still wait for approval.
 */
export async function* settleStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  executions: Execution<Deps>[],
  endedBefore?: ToolCall,
): AsyncGenerator<LoopEvent, StepOutcome> {
  const succeeded: { slot: number; raw: unknown }[] = [];
  let failure: unknown;
  const tools = step.view.callableTools();
  const start = async (execution: Execution<Deps>) => {
    step.slots[execution.slot]!.record.started = true;
    await run.checkpoint();
  };
  const settled = executeCalls(run, executions, step.index, tools, start);
  for await (const done of withUnsettledOnAbort(run, step, settled)) {
    const slot = step.slots[done.slot]!;
    const { record } = slot;
    delete record.started;
    delete record.input;
    record.ms = done.ms;
    if (done.kind === "ok") {
      record.result = okResult(record.toolCallId, record.toolName, done.output);
      succeeded.push({ slot: done.slot, raw: done.raw });
    } else {
      record.result = errorResult(record.toolCallId, record.toolName, done.output);
      failure ??= failureOf(run, slot, done.kind, done.error);
    }
    if (record.editedFrom !== undefined) record.result.editedArgs = record.args;
    await run.race(run.checkpoint());
    yield resultEvent(run, step.index, record, done.ms);
  }
  if (failure) throw failure;
  succeeded.sort((a, b) => a.slot - b.slot);
  for (const { slot } of succeeded) run.executed.push(step.slots[slot]!.record.toolName);
  const endedBy = endedBefore ?? (await firstEndingCall(run, step, succeeded, tools));
  if (step.slots.some((slot) => !slot.record.result)) {
    yield* finishStep(run, step);
    return endedBy ? { kind: "paused", endedBy } : { kind: "paused" };
  }
  run.messages.push({ role: "tool", results: step.slots.map((slot) => slot.record.result!) });
  yield* finishStep(run, step);
  return endedBy ? { kind: "ended", endedBy } : { kind: "continue" };
}

/** The error a failed execution ends the run with, if any; counts `RetryError`s. */
function failureOf<Deps>(
  run: RunContext<Deps>,
  slot: CallSlot<Deps>,
  kind: string,
  error: unknown,
): unknown {
  try {
    if (kind === "retry") failTool(run, slot.tool!, error);
  } catch (exceeded) {
    return exceeded;
  }
  if (kind === "error" && run.options.toolErrors === "throw") {
    return new ToolExecutionError(slot.record.toolName, slot.record.toolCallId, { cause: error });
  }
  return undefined;
}

async function firstEndingCall<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  succeeded: { slot: number; raw: unknown }[],
  tools: Tool<Deps>[],
): Promise<ToolCall | undefined> {
  const { endsRun } = run.options.policy;
  if (!endsRun) return undefined;
  for (const { slot, raw } of succeeded) {
    const call = step.slots[slot]!.call!;
    const ends = await run.race(
      Promise.resolve(endsRun.call(run.options.policy, { call, output: raw, tools })),
    );
    if (ends) return call;
  }
  return undefined;
}

/** Counts one failure of a tool; throws `ToolRetriesExceededError` past its `maxRetries`. */
export function failTool<Deps>(run: RunContext<Deps>, tool: Tool<Deps>, cause: unknown): void {
  const failures = (run.retries.get(tool.name) ?? 0) + 1;
  run.retries.set(tool.name, failures);
  if (failures > tool.maxRetries)
    throw new ToolRetriesExceededError(tool.name, tool.maxRetries, { cause });
}

/**
 * Passes settled executions on; when the run is aborted meanwhile, adds the calls that had
 * started and not settled to the abort reason's `unsettledCalls` (when the reason is an
 * object), so the caller knows which side effects are uncertain.
 */
async function* withUnsettledOnAbort<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  settled: AsyncGenerator<Settled>,
): AsyncGenerator<Settled> {
  try {
    yield* settled;
  } catch (error) {
    if (run.signal.aborted && error === run.signal.reason) noteUnsettled(run, step, error);
    throw error;
  }
}

function noteUnsettled<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>, reason: unknown): void {
  if (typeof reason !== "object" || reason === null || Object.isFrozen(reason)) return;
  const unsettled: UnsettledCall[] = step.slots
    .filter((slot) => slot.record.started)
    .map(({ record }) => ({
      runId: run.runId,
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      args: record.args,
    }));
  const holder = reason as { unsettledCalls?: UnsettledCall[] };
  holder.unsettledCalls = [...(holder.unsettledCalls ?? []), ...unsettled];
}
