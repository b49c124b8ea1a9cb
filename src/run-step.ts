import {
  messageOf,
  TollgateError,
  ToolExecutionError,
  ToolRetriesExceededError,
} from "./errors.js";
import type { LoopEvent } from "./events.js";
import type { Execution } from "./execute-calls.js";
import { executeCalls } from "./execute-calls.js";
import type { GateOutcome, ToolCallPart } from "./gate.js";
import { gate } from "./gate.js";
import type { ToolCall, ToolResult } from "./messages.js";
import { addUsage } from "./messages.js";
import { callModel } from "./model-call.js";
import type { RunContext } from "./run-context.js";
import type { CallRecord, StepRecord } from "./run-result.js";
import type { StepView } from "./step-tools.js";
import { stepTools } from "./step-tools.js";
import type { Tool } from "./tool.js";
import { errorResult, normalizeOutput, okResult } from "./tool-output.js";

/** How a step ended, for the loop to decide what comes next. */
export type StepOutcome =
  | { kind: "continue" }
  | { kind: "completed" }
  | { kind: "stopped"; reason?: string }
  | { kind: "ended"; endedBy: ToolCall }
  | { kind: "paused"; endedBy?: ToolCall };

/** One call of the step while it is being settled. */
export interface CallSlot<Deps> {
  record: CallRecord;
  tool?: Tool<Deps>;
  call?: ToolCall;
}

/** A step after its model call, while its calls are gated and run. */
export interface OpenStep<Deps> {
  index: number;
  started: number;
  view: Pick<StepView<Deps>, "shown" | "callableTools" | "callableNames" | "toolChoice">;
  response: StepRecord["response"];
  /** The tool calls the model asked for, in call order. */
  parts: ToolCallPart[];
  /** One per call that reached the gate, in call order. */
  slots: CallSlot<Deps>[];
}

/**
 * Runs one step: asks which tools to offer, calls the model, gates every call in call order
 * (phase one), then runs the allowed ones (phase two) and writes the results.
 */
export async function* runStep<Deps>(
  run: RunContext<Deps>,
): AsyncGenerator<LoopEvent, StepOutcome> {
  const index = run.steps.length;
  const started = performance.now();
  const view = await stepTools(run);
  const { runId } = run;
  yield {
    type: "step-start",
    runId,
    step: index,
    tools: view.shown.map((tool) => tool.name),
    callable: view.callableNames(),
  };
  const response = yield* callModel(
    run,
    {
      ...(run.options.instructions === undefined ? {} : { system: run.options.instructions }),
      messages: run.messages.slice(),
      tools: view.specs,
      ...(view.toolChoice === undefined ? {} : { toolChoice: view.toolChoice }),
      ...(run.options.settings === undefined ? {} : { settings: run.options.settings }),
    },
    index,
  );
  run.usage = addUsage(run.usage, response.usage);
  if (response.parts.length > 0) run.messages.push({ role: "assistant", parts: response.parts });
  yield {
    type: "model-response",
    runId,
    step: index,
    finishReason: response.finishReason,
    usage: response.usage,
    response,
  };
  const { raw: _raw, ...stored } = response;
  const parts = response.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
  const step: OpenStep<Deps> = { index, started, view, response: stored, parts, slots: [] };
  if (parts.length === 0) {
    yield* finishStep(run, step);
    return { kind: "completed" };
  }
  try {
    const stop = yield* gateCalls(run, step, view);
    if (stop) {
      const note = stop.reason === undefined ? "" : ` (${stop.reason})`;
      for (const slot of step.slots) {
        slot.record.result = errorResult(
          slot.record.toolCallId,
          slot.record.toolName,
          `not run: the run was stopped${note}`,
        );
      }
      yield* resultEvents(run, step, step.slots);
      run.messages.push({ role: "tool", results: step.slots.map((slot) => slot.record.result!) });
      yield* finishStep(run, step);
      return stop.reason === undefined
        ? { kind: "stopped" }
        : { kind: "stopped", reason: stop.reason };
    }
    yield* resultEvents(run, step, step.slots);
    return yield* settleStep(run, step, allowedExecutions(step));
  } catch (error) {
    closeOnError(run, step, error);
    throw error;
  }
}

/** Phase one: every call through the gate, in call order. Returns the stop, if a hook stopped the run. */
async function* gateCalls<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  view: StepView<Deps>,
): AsyncGenerator<LoopEvent, { by: CallRecord["by"]; reason?: string } | undefined> {
  const { runId, options } = run;
  let stop: { by: CallRecord["by"]; reason?: string } | undefined;
  for (const part of step.parts) {
    const tool = view.callable(part.name);
    const record: CallRecord = {
      toolCallId: part.id,
      toolName: part.name,
      rawArgs: part.args,
      verdict: "allow",
      by: "default",
    };
    const slot: CallSlot<Deps> = tool ? { record, tool } : { record };
    step.slots.push(slot);
    yield {
      type: "tool-call",
      runId,
      step: step.index,
      toolCallId: part.id,
      toolName: part.name,
      rawArgs: part.args,
    };
    if (stop) {
      record.verdict = "stop";
      record.by = stop.by;
      if (stop.reason !== undefined) record.reason = stop.reason;
    } else {
      const outcome = await run.race(
        gate({
          part,
          tool,
          callable: view.callableNames,
          step: step.index,
          hooks: options.hooks,
          policy: options.policy,
          deps: run.deps,
          provider: options.provider,
          context: (t) => toolContext(run, t, part, step.index),
        }),
      );
      applyOutcome(slot, outcome);
      if (outcome.kind === "stop")
        stop = {
          by: outcome.by,
          ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
        };
    }
    yield decisionEvent(run, step.index, slot);
    countFailure(run, slot);
  }
  return stop;
}

/** Writes what the gate decided into the call's record (and its result, when it will not run). */
function applyOutcome<Deps>(slot: CallSlot<Deps>, outcome: GateOutcome): void {
  const { record } = slot;
  record.verdict = outcome.kind;
  record.by = outcome.by;
  if ("call" in outcome) {
    slot.call = outcome.call;
    record.args = outcome.call.args;
  }
  const fail = (message: string) => {
    record.result = errorResult(record.toolCallId, record.toolName, message);
  };
  switch (outcome.kind) {
    case "unavailable":
    case "invalid":
    case "block":
      fail(outcome.message);
      return;
    case "deny":
      if (outcome.reason !== undefined) record.reason = outcome.reason;
      fail(
        `the call to ${record.toolName} was denied${outcome.reason === undefined ? "" : `: ${outcome.reason}`}`,
      );
      return;
    case "result":
      record.result = okResult(record.toolCallId, record.toolName, normalizeOutput(outcome.output));
      return;
    case "stop":
    case "needs-approval":
    case "allow":
      if (outcome.reason !== undefined) record.reason = outcome.reason;
  }
}

/** Counts a failed call against its tool's retries (or the loop's, for calls that were not callable). */
function countFailure<Deps>(run: RunContext<Deps>, slot: CallSlot<Deps>): void {
  const { record } = slot;
  if (record.verdict === "unavailable") {
    run.unavailableCalls++;
    if (run.unavailableCalls > run.options.maxRetries) {
      throw new ToolRetriesExceededError(record.toolName, run.options.maxRetries, {
        cause: new TollgateError(String(record.result?.output)),
      });
    }
  } else if (record.verdict === "invalid") {
    failTool(run, slot.tool!, new TollgateError(String(record.result?.output)));
  }
}

/** Counts one failure of a tool; throws `ToolRetriesExceededError` past its `maxRetries`. */
function failTool<Deps>(run: RunContext<Deps>, tool: Tool<Deps>, cause: unknown): void {
  const failures = (run.retries.get(tool.name) ?? 0) + 1;
  run.retries.set(tool.name, failures);
  if (failures > tool.maxRetries)
    throw new ToolRetriesExceededError(tool.name, tool.maxRetries, { cause });
}

function allowedExecutions<Deps>(step: OpenStep<Deps>): Execution<Deps>[] {
  const executions: Execution<Deps>[] = [];
  step.slots.forEach((slot, index) => {
    if (slot.record.verdict === "allow")
      executions.push({ slot: index, call: slot.call!, tool: slot.tool! });
  });
  return executions;
}

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
  for await (const done of executeCalls(run, executions, step.index, tools)) {
    const slot = step.slots[done.slot]!;
    const { record } = slot;
    record.ms = done.ms;
    if (done.kind === "ok") {
      record.result = okResult(record.toolCallId, record.toolName, done.output);
      succeeded.push({ slot: done.slot, raw: done.raw });
    } else {
      record.result = errorResult(record.toolCallId, record.toolName, done.output);
      failure ??= failureOf(run, slot, done.kind, done.error);
    }
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

/** Records the step and emits `step-finish`. */
async function* finishStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): AsyncGenerator<LoopEvent> {
  const record: StepRecord = {
    index: step.index,
    tools: step.view.shown.map((tool) => tool.name),
    callable: step.view.callableNames(),
    response: step.response,
    calls: step.slots.map((slot) => ({ ...slot.record })),
    usage: step.response.usage,
    ms: performance.now() - step.started,
  };
  if (step.view.toolChoice !== undefined) record.toolChoice = step.view.toolChoice;
  if (run.steps.length > step.index) run.steps[step.index] = record;
  else run.steps.push(record);
  yield { type: "step-finish", runId: run.runId, step: step.index, record };
}

/** `tool-result` events for the calls that already have a result, in call order. */
function* resultEvents<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  slots: CallSlot<Deps>[],
): Generator<LoopEvent> {
  for (const slot of slots)
    if (slot.record.result) yield resultEvent(run, step.index, slot.record, 0);
}

function resultEvent<Deps>(
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

function decisionEvent<Deps>(run: RunContext<Deps>, step: number, slot: CallSlot<Deps>): LoopEvent {
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

/** The context a tool of this step runs with (also given to `needsApproval`). */
function toolContext<Deps>(
  run: RunContext<Deps>,
  tool: Tool<Deps>,
  part: ToolCallPart,
  step: number,
) {
  return {
    deps: run.deps,
    toolCallId: part.id,
    toolName: tool.name,
    retry: run.retries.get(tool.name) ?? 0,
    maxRetries: tool.maxRetries,
    step,
    signal: run.signal,
    rawArgs: part.args,
  };
}

/**
 * When a run fails mid-step, gives every call of the step a result so the transcript the
 * error carries keeps its invariant, and attaches it to tollgate's own errors.
 */
function closeOnError<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>, error: unknown): void {
  if (!(error instanceof TollgateError) || error.messages) return;
  const results = step.parts.map(
    (part, index) =>
      step.slots[index]?.record.result ??
      errorResult(part.id, part.name, `not run: the run failed (${messageOf(error)})`),
  );
  const messages = run.messages.slice();
  if (results.length > 0) messages.push({ role: "tool", results });
  error.messages = messages;
}
