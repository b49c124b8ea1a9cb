import { canonicalJson } from "./digest.js";
import { TollgateError, ToolRetriesExceededError } from "./errors.js";
import type { Execution } from "./execute-calls.js";
import type { GateOutcome, ToolCallPart } from "./gate.js";
import { gate } from "./gate.js";
import { isPromise } from "./maybe-promise.js";
import type { ToolCall } from "./messages.js";
import { addUsage } from "./messages.js";
import { callModel } from "./model-call.js";
import type { CallSlot, OpenStep, StepOutcome } from "./open-step.js";
import { closeOnError, finishStep, recordOf } from "./open-step.js";
import type { RunContext } from "./run-context.js";
import type { DeniedCall } from "./run-state.js";
import { failTool, settleStep } from "./settle-step.js";
import { decisionEvent, resultEvents } from "./step-events.js";
import type { CallRecord } from "./step-record.js";
import type { StepView } from "./step-tools.js";
import { stepTools } from "./step-tools.js";
import type { Tool, ToolContext } from "./tool.js";
import { errorResult, normalizeOutput, okResult } from "./tool-output.js";

/**
 * Runs one step: asks which tools to offer, calls the model, gates every call in call order
 * (phase one), then runs the allowed ones (phase two) and writes the results.
 */
export async function runStep<Deps>(run: RunContext<Deps>): Promise<StepOutcome> {
  const index = run.steps.length;
  const started = performance.now();
  const viewOrPromise = stepTools(run);
  const view = isPromise(viewOrPromise) ? await viewOrPromise : viewOrPromise;
  const { runId } = run;
  run.emit({
    type: "step-start",
    runId,
    step: index,
    tools: view.shownNames as string[],
    callable: view.callableNames as string[],
  });
  const response = await callModel(
    run,
    {
      ...(run.options.instructions === undefined ? {} : { system: run.options.instructions }),
      messages: run.messages.slice(),
      tools: view.specs.slice(),
      ...(view.toolChoice === undefined ? {} : { toolChoice: view.toolChoice }),
      ...(run.options.settings === undefined ? {} : { settings: run.options.settings }),
    },
    index,
  );
  run.usage = addUsage(run.usage, response.usage);
  if (response.parts.length > 0) run.messages.push({ role: "assistant", parts: response.parts });
  run.emit({
    type: "model-response",
    runId,
    step: index,
    finishReason: response.finishReason,
    usage: response.usage,
    response,
  });
  const { raw: _raw, ...stored } = response;
  const parts = response.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
  const step: OpenStep<Deps> = { index, started, view, response: stored, parts, slots: [] };
  run.openStep = () => recordOf(step);
  if (parts.length === 0) {
    finishStep(run, step);
    return { kind: "completed" };
  }
  try {
    const stop = await gateCalls(run, step, view);
    if (stop) {
      const note = stop.reason === undefined ? "" : ` (${stop.reason})`;
      for (const slot of step.slots) {
        slot.record.result = errorResult(
          slot.record.toolCallId,
          slot.record.toolName,
          `not run: the run was stopped${note}`,
        );
      }
      resultEvents(run, step, step.slots);
      run.messages.push({ role: "tool", results: step.slots.map((slot) => slot.record.result!) });
      finishStep(run, step);
      return stop.reason === undefined
        ? { kind: "stopped" }
        : { kind: "stopped", reason: stop.reason };
    }
    resultEvents(run, step, step.slots);
    return await settleStep(run, step, allowedExecutions(step));
  } catch (error) {
    closeOnError(run, step, error);
    throw error;
  }
}

/** Phase one: every call through the gate, in call order. Returns the stop, if a hook stopped the run. */
async function gateCalls<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  view: StepView<Deps>,
): Promise<{ by: CallRecord["by"]; reason?: string } | undefined> {
  const { runId, options } = run;
  let stop: { by: CallRecord["by"]; reason?: string } | undefined;
  for (const part of step.parts) {
    const tool = view.find(part.name);
    const record: CallRecord = {
      toolCallId: part.id,
      toolName: part.name,
      rawArgs: part.args,
      verdict: "allow",
      by: "default",
    };
    const slot: CallSlot<Deps> = tool ? { record, tool } : { record };
    step.slots.push(slot);
    run.emit({
      type: "tool-call",
      runId,
      step: step.index,
      toolCallId: part.id,
      toolName: part.name,
      rawArgs: part.args,
    });
    if (stop) {
      record.verdict = "stop";
      record.by = stop.by;
      if (stop.reason !== undefined) record.reason = stop.reason;
    } else {
      const judged = gate({
        part,
        tool,
        callable: view.callableNames,
        step: step.index,
        hooks: options.hooks,
        policy: options.policy,
        deps: run.deps,
        provider: options.provider,
        context: (t) => toolContext(run, t, part, step.index),
        refused: (call) => refusal(run, call),
      });
      const outcome = isPromise(judged) ? await judged : judged;
      run.signal.throwIfAborted();
      applyOutcome(slot, outcome);
      if (outcome.kind === "stop")
        stop = {
          by: outcome.by,
          ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
        };
    }
    run.emit(decisionEvent(run, step.index, slot));
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
    if (outcome.kind === "allow" || outcome.kind === "needs-approval") record.input = outcome.input;
  }
  const fail = (message: string) => {
    record.result = errorResult(record.toolCallId, record.toolName, message);
  };
  switch (outcome.kind) {
    case "unavailable":
    case "invalid":
    case "block":
      record.reason = outcome.message;
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

function allowedExecutions<Deps>(step: OpenStep<Deps>): Execution<Deps>[] {
  const executions: Execution<Deps>[] = [];
  step.slots.forEach((slot, index) => {
    if (slot.record.verdict === "allow")
      executions.push({ slot: index, call: slot.call!, tool: slot.tool! });
  });
  return executions;
}

/** The earlier human refusal of this exact call, unless refusals are not remembered. */
function refusal<Deps>(run: RunContext<Deps>, call: ToolCall): DeniedCall | undefined {
  if (run.options.repeatDenied === "ask" || run.denied.length === 0) return undefined;
  const args = canonicalJson(call.args);
  return run.denied.find((denied) => denied.toolName === call.name && denied.args === args);
}

/** The context a tool of this step runs with (also given to `needsApproval`). */
function toolContext<Deps>(
  run: RunContext<Deps>,
  tool: Tool<Deps>,
  part: ToolCallPart,
  step: number,
): ToolContext<Deps> {
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
