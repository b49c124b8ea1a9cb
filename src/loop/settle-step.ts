import { ToolExecutionError, ToolOutputError, ToolRetriesExceededError } from "../errors.js";
import type { ToolCall } from "../messages.js";
import type { Tool } from "../tools/tool.js";
import { errorResult, okResult } from "../tools/tool-output.js";
import { isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, readBoolean } from "../util/policy-call.js";
import type { Execution, ExecutionHooks, Settled } from "./execute-calls.js";
import { executeCalls } from "./execute-calls.js";
import type { CallSlot, OpenStep, StepOutcome } from "./open-step.js";
import { finishStep, settleRecord } from "./open-step.js";
import type { RunContext } from "./run-context.js";
import { resultEvent } from "./step-events.js";

/**
 * Phase two and the end of the step: runs the executions, asks `endsRun`, then writes the
 * step's tool message — or pauses when calls still wait for approval.
 */
export async function settleStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  executions: Execution<Deps>[],
  endedBefore?: ToolCall,
): Promise<StepOutcome> {
  const succeeded: { slot: number; raw: unknown }[] = [];
  let failure: unknown;
  const tools = step.view.callableTools as Tool<Deps>[];
  const { store } = run.options;
  let written: Promise<void> | undefined;
  const hooks: ExecutionHooks<Deps> = {
    start(execution) {
      const slot = step.slots[execution.slot]!;
      slot.record = { ...slot.record, started: true };
      return store ? run.checkpoint() : undefined;
    },
    settled(done) {
      const slot = step.slots[done.slot]!;
      const { record } = slot;
      const edited = record.editedFrom === undefined ? undefined : record.args;
      const { toolCallId, toolName } = record;
      if (done.kind === "ok") {
        settleRecord(slot, okResult(toolCallId, toolName, done.output, edited), done.ms);
        succeeded.push({ slot: done.slot, raw: done.raw });
      } else {
        settleRecord(slot, errorResult(toolCallId, toolName, done.output, edited), done.ms);
        failure ??= failureOf(run, slot, done);
      }
      if (store) {
        written = run.checkpoint();
        written.catch(() => {}); // awaited below; a failed write must not go unhandled meanwhile
      }
      if (run.listening) run.emit(resultEvent(run, step.index, slot.record, done.ms));
    },
    halted: () => failure !== undefined,
  };
  await executeCalls(run, executions, step.index, tools, hooks);
  if (written) await written;
  run.signal.throwIfAborted();
  if (failure) throw failure;
  succeeded.sort((a, b) => a.slot - b.slot);
  for (const { slot } of succeeded) run.executed.push(step.slots[slot]!.record.toolName);
  const ending = endedBefore ?? firstEndingCall(run, step, succeeded, tools);
  const endedBy = isPromise(ending) ? await ending : ending;
  if (step.slots.some((slot) => !slot.record.result)) {
    finishStep(run, step);
    return endedBy ? { kind: "paused", endedBy } : { kind: "paused" };
  }
  run.messages.push({ role: "tool", results: step.slots.map((slot) => slot.record.result!) });
  finishStep(run, step);
  return endedBy ? { kind: "ended", endedBy } : { kind: "continue" };
}

/** The error a failed execution ends the run with, if any; counts `RetryError`s. */
function failureOf<Deps>(
  run: RunContext<Deps>,
  slot: CallSlot<Deps>,
  done: Exclude<Settled, { kind: "ok" }>,
): unknown {
  const { toolName, toolCallId } = slot.record;
  switch (done.kind) {
    case "policy":
      return done.error;
    case "retry":
      try {
        failTool(run, slot.tool!, done.error);
      } catch (exceeded) {
        return exceeded;
      }
      return undefined;
    case "error":
      return run.options.toolErrors === "throw"
        ? new ToolExecutionError(toolName, toolCallId, { cause: done.error })
        : undefined;
    case "unfit":
      return run.options.toolErrors === "throw"
        ? new ToolOutputError(done.output, toolName, toolCallId)
        : undefined;
    case "timeout":
      return undefined;
  }
}

/** The first succeeded call, in call order, that `endsRun` says ends the run. */
function firstEndingCall<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  succeeded: { slot: number; raw: unknown }[],
  tools: Tool<Deps>[],
  from = 0,
): MaybePromise<ToolCall | undefined> {
  const { policy } = run.options;
  const { endsRun } = policy;
  if (!endsRun) return undefined;
  for (let index = from; index < succeeded.length; index++) {
    const { slot, raw } = succeeded[index]!;
    const call = step.slots[slot]!.call!;
    const ends = callPolicy(
      "endsRun",
      call.name,
      () => endsRun.call(policy, { call, output: raw, tools: tools.slice() }),
      readBoolean,
    );
    if (isPromise(ends)) {
      return ends.then((ended) => {
        run.signal.throwIfAborted();
        return ended ? call : firstEndingCall(run, step, succeeded, tools, index + 1);
      });
    }
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
