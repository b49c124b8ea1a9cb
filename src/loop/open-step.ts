import { messageOf } from "../errors.js";
import type { ToolCallPart } from "../gate/gate.js";
import type { Message, ToolCall, ToolResult } from "../messages.js";
import type { CallRecord, StepRecord } from "../step-record.js";
import type { Tool } from "../tools/tool.js";
import { errorResult } from "../tools/tool-output.js";
import type { StepView } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";

/** How a step ended, for the loop to decide what comes next. */
export type StepOutcome =
  | { kind: "continue" }
  | { kind: "completed" }
  | { kind: "stopped"; reason?: string }
  | { kind: "ended"; endedBy: ToolCall }
  | { kind: "paused"; endedBy?: ToolCall };

/**
 * One call of the step while it is gated and run. `record` is replaced (never edited in
 * place) as the call moves on; `call` is the frozen call once its args were read; `parsed`
 * is the schema's output for an allowed call's args, what `execute` gets.
 */
export interface CallSlot<Deps> {
  record: CallRecord;
  tool?: Tool<Deps>;
  call?: ToolCall;
  parsed?: unknown;
}

/** Gives a call its result: a new record without `started`, with how long the tool ran. */
export function settleRecord<Deps>(slot: CallSlot<Deps>, result: ToolResult, ms?: number): void {
  const { toolCallId, toolName, rawArgs, args, editedFrom, verdict, by, reason } = slot.record;
  const record: CallRecord = { toolCallId, toolName, rawArgs, verdict, by, result };
  if (args !== undefined) record.args = args;
  if (editedFrom !== undefined) record.editedFrom = editedFrom;
  if (reason !== undefined) record.reason = reason;
  if (ms !== undefined) record.ms = ms;
  slot.record = record;
}

/** A step after its model call, while its calls are gated and run. */
export interface OpenStep<Deps> {
  index: number;
  started: number;
  view: Pick<StepView<Deps>, "shownNames" | "callableTools" | "callableNames" | "toolChoice">;
  response: StepRecord["response"];
  /** The tool calls the model asked for, in call order. */
  parts: ToolCallPart[];
  /** One per call that reached the gate, in call order. */
  slots: CallSlot<Deps>[];
}

/** Records the step and emits `step-finish`. */
export function finishStep<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>): void {
  const record = recordOf(step);
  run.openStep = undefined;
  if (run.steps.length > step.index) run.steps[step.index] = record;
  else run.steps.push(record);
  if (run.listening) run.emit({ type: "step-finish", runId: run.runId, step: step.index, record });
}

/** The step as a record: a copy, so later changes to the open step do not reach it. */
export function recordOf<Deps>(step: OpenStep<Deps>): StepRecord {
  const record: StepRecord = {
    index: step.index,
    tools: step.view.shownNames.slice(),
    callable: step.view.callableNames.slice(),
    response: step.response,
    calls: step.slots.map((slot) => slot.record),
    usage: step.response.usage,
    ms: performance.now() - step.started,
  };
  if (step.view.toolChoice !== undefined) record.toolChoice = step.view.toolChoice;
  return record;
}

/**
 * The transcript an error that ends a run carries: the run's messages, and when they end with
 * an assistant message whose calls have no results yet (the run failed mid-step, or while
 * writing a paused state), a tool message for it — each call's result where it has one, else
 * "not run" — so every tool call still has exactly one result.
 */
export function transcriptOnFailure<Deps>(run: RunContext<Deps>, error: unknown): Message[] {
  const messages = run.messages.slice();
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return messages;
  const parts = last.parts.filter((part) => part.type === "tool-call");
  if (parts.length === 0) return messages;
  const calls = run.openStep?.().calls ?? run.steps[run.steps.length - 1]?.calls ?? [];
  const results = parts.map(
    (part) =>
      calls.find((call) => call.toolCallId === part.id)?.result ??
      errorResult(part.id, part.name, `not run: the run failed (${messageOf(error)})`),
  );
  messages.push(toolMessage(results));
  return messages;
}

/** The tool message of a step: every call's result, in call order. */
export function toolMessage(results: ToolResult[]): Message {
  return { role: "tool", results };
}
