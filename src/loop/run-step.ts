import { HookError, TollgateError, ToolRetriesExceededError } from "../errors.js";
import type { GateOutcome, ToolCallPart } from "../gate/gate.js";
import { gate, hookName } from "../gate/gate.js";
import type { ToolCall } from "../messages.js";
import { addUsage } from "../messages.js";
import { canonicalJson } from "../state/digest.js";
import type { DeniedCall } from "../state/run-state.js";
import type { CallRecord, StepRecord } from "../step-record.js";
import { errorResult, okResult, toJsonOutput } from "../tools/tool-output.js";
import { isPromise } from "../util/maybe-promise.js";
import { callModel } from "./call-model.js";
import type { Execution } from "./execute-calls.js";
import type { CallSlot, OpenStep, StepOutcome } from "./open-step.js";
import { finishStep, recordOf, settleRecord, toolMessage } from "./open-step.js";
import type { StepView } from "./prepare-step.js";
import { stepTools } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { failTool, settleStep } from "./settle-step.js";
import { decisionEvent, resultEvents } from "./step-events.js";
import { toolContext } from "./tool-context.js";

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
  if (response.parts.length > 0) {
    run.messages.push({ role: "assistant", parts: response.parts });
  }
  run.emit({
    type: "model-response",
    runId,
    step: index,
    finishReason: response.finishReason,
    usage: response.usage,
    response,
  });
  const stored: StepRecord["response"] = {
    parts: response.parts,
    finishReason: response.finishReason,
    usage: response.usage,
  };
  const parts = response.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
  const step: OpenStep<Deps> = { index, started, view, response: stored, parts, slots: [] };
  run.openStep = () => recordOf(step);
  if (parts.length === 0) {
    finishStep(run, step);
    return { kind: "completed" };
  }
  const stop = await gateCalls(run, step, view);
  if (stop) {
    const note = stop.reason === undefined ? "" : ` (${stop.reason})`;
    for (const slot of step.slots) {
      const { toolCallId, toolName } = slot.record;
      settleRecord(slot, errorResult(toolCallId, toolName, `not run: the run was stopped${note}`));
    }
    resultEvents(run, step, step.slots);
    run.messages.push(toolMessage(step.slots.map((slot) => slot.record.result!)));
    finishStep(run, step);
    return stop.reason === undefined
      ? { kind: "stopped" }
      : { kind: "stopped", reason: stop.reason };
  }
  resultEvents(run, step, step.slots);
  return settleStep(run, step, allowedExecutions(step));
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
    const slot: CallSlot<Deps> = {
      record: {
        toolCallId: part.id,
        toolName: part.name,
        rawArgs: part.args,
        verdict: "allow",
        by: "default",
      },
    };
    if (tool) slot.tool = tool;
    step.slots.push(slot);
    if (run.listening)
      run.emit({
        type: "tool-call",
        runId,
        step: step.index,
        toolCallId: part.id,
        toolName: part.name,
        rawArgs: part.args,
      });
    if (stop) {
      slot.record = {
        ...slot.record,
        verdict: "stop",
        by: stop.by,
        ...(stop.reason === undefined ? {} : { reason: stop.reason }),
      };
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
        argsLimits: options.argsLimits,
        context: (t) => toolContext(run, t, { id: part.id, rawArgs: part.args }, step.index),
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
    if (run.listening) run.emit(decisionEvent(run, step.index, slot));
    countFailure(run, slot);
  }
  return stop;
}

/** Writes what the gate decided into the call's slot: a new record, and its result when it will not run. */
function applyOutcome<Deps>(slot: CallSlot<Deps>, outcome: GateOutcome): void {
  const record: CallRecord = { ...slot.record, verdict: outcome.kind, by: outcome.by };
  const { toolCallId, toolName } = record;
  if ("call" in outcome) {
    slot.call = outcome.call;
    record.args = outcome.call.args;
  }
  if (outcome.kind === "allow") slot.parsed = outcome.parsed;
  switch (outcome.kind) {
    case "unavailable":
    case "invalid":
    case "block":
      record.reason = outcome.message;
      record.result = errorResult(toolCallId, toolName, outcome.message);
      break;
    case "deny": {
      if (outcome.reason !== undefined) record.reason = outcome.reason;
      const because = outcome.reason === undefined ? "" : `: ${outcome.reason}`;
      record.result = errorResult(
        toolCallId,
        toolName,
        `the call to ${toolName} was denied${because}`,
      );
      break;
    }
    case "result": {
      const json = toJsonOutput(outcome.output);
      if (!json.ok) {
        throw new HookError(
          `${hookName(Number(outcome.by.slice("hook:".length)))} answered tool ${toolName} with a result JSON cannot carry: ${json.problem}`,
          Number(outcome.by.slice("hook:".length)),
          toolName,
          toolCallId,
        );
      }
      record.result = okResult(toolCallId, toolName, json.output);
      break;
    }
    case "stop":
    case "needs-approval":
    case "allow":
      if (outcome.reason !== undefined) record.reason = outcome.reason;
  }
  slot.record = record;
}

/**
 * Counts a failed call against its tool's retries, or, for a call to a tool that is not
 * callable, against the loop's `maxRetries` for that name.
 */
function countFailure<Deps>(run: RunContext<Deps>, slot: CallSlot<Deps>): void {
  const { record } = slot;
  if (record.verdict === "unavailable") {
    const calls = (run.unavailableCalls.get(record.toolName) ?? 0) + 1;
    run.unavailableCalls.set(record.toolName, calls);
    const { maxRetries } = run.options;
    if (calls > maxRetries) {
      throw new ToolRetriesExceededError(record.toolName, maxRetries, {
        cause: new TollgateError(String(record.result?.output)),
        unavailable: true,
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
      executions.push({ slot: index, call: slot.call!, parsed: slot.parsed, tool: slot.tool! });
  });
  return executions;
}

/** The earlier human refusal of this exact call, unless refusals are not remembered. */
function refusal<Deps>(run: RunContext<Deps>, call: ToolCall): DeniedCall | undefined {
  if (run.options.repeatDenied === "ask" || run.denied.length === 0) return undefined;
  const args = canonicalJson(call.args);
  return run.denied.find((denied) => denied.toolName === call.name && denied.args === args);
}
