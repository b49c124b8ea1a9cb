import { HookError, PolicyError } from "../errors.js";
import { frozenCall } from "../gate/frozen-call.js";
import type { GateOutcome } from "../gate/gate.js";
import { hookName } from "../gate/hook-chain.js";
import type { ResumePlan } from "../state/resume/resolutions.js";
import { freezeJson } from "../tools/args.js";
import { errorResult, okResult, toJsonOutput } from "../tools/tool-output.js";
import type { ToolCall, ToolCallPart, ToolContentPart, ToolResult } from "../types/messages.js";
import type { RunState } from "../types/run-state.js";
import type { CallRecord, DecidedBy, SubRunState, Verdict } from "../types/step-record.js";
import type { Tool } from "../types/tool.js";
import type { FormatToolError, ToolErrorInfo, ToolErrorKind } from "../types/tool-feedback.js";
import { shortForm, threw } from "../util/policy-call.js";

/**
 * One call of the open step. `record` is what the state and the events show; it is replaced
 * (never edited in place) at each turn of the call's life, and only by this module:
 * arrived → decided (or stopped) → started → settled, or, on resume, approved / refused /
 * outcome unknown. `call` is the frozen call once its args were read; `parsed` the schema's
 * output for an allowed call's final args, what `execute` gets. A sub-agent's call may wait on
 * its paused sub-run instead of settling; on resume it `continues` that run.
 */
export interface OpenCall<Deps> {
  readonly record: CallRecord;
  readonly tool: Tool<Deps> | undefined;
  readonly call: ToolCall | undefined;
  readonly parsed: unknown;
  /** The checked plan of the paused sub-run this call continues, when resumed. */
  readonly continues?: ResumePlan | undefined;
}

type Mutable<Deps> = { -readonly [K in keyof OpenCall<Deps>]: OpenCall<Deps>[K] };
const write = <Deps>(open: OpenCall<Deps>) => open as Mutable<Deps>;

/** A call as it reaches the gate: not decided yet. */
export function arrived<Deps>(part: ToolCallPart, tool: Tool<Deps> | undefined): OpenCall<Deps> {
  return {
    record: {
      toolCallId: part.id,
      toolName: part.name,
      rawArgs: part.args,
      verdict: "allow",
      by: "default",
    },
    tool,
    call: undefined,
    parsed: undefined,
  };
}

/** A call of a stored open step, as the state holds it. */
export function restored<Deps>(record: CallRecord, tool: Tool<Deps> | undefined): OpenCall<Deps> {
  const frozen = freezeJson(record);
  const call =
    "args" in frozen
      ? frozenCall(frozen.toolCallId, frozen.toolName, frozen.args, frozen.rawArgs)
      : undefined;
  return { record: frozen, tool, call, parsed: undefined };
}

/**
 * A copy of a record with another verdict, field by field. Why not `{ ...record, verdict }`: on
 * Node 20 a spread followed by more fields takes a slow path, about 0.5 µs per record, and a
 * tool call makes several records.
 */
export function recordWith(from: CallRecord, verdict: Verdict, by: DecidedBy): CallRecord {
  const { toolCallId, toolName, rawArgs } = from;
  const record: CallRecord = { toolCallId, toolName, rawArgs, verdict, by };
  if (from.args !== undefined) record.args = from.args;
  if (from.editedFrom !== undefined) record.editedFrom = from.editedFrom;
  if (from.repairedFrom !== undefined) record.repairedFrom = from.repairedFrom;
  if (from.started !== undefined) record.started = from.started;
  if (from.reason !== undefined) record.reason = from.reason;
  if (from.result !== undefined) record.result = from.result;
  if (from.ms !== undefined) record.ms = from.ms;
  if (from.subRun !== undefined) record.subRun = from.subRun;
  if (from.external !== undefined) record.external = from.external;
  return record;
}

/** The text the model reads for a call that did not run: `message`, unless the loop formats it. */
const asIs: FormatToolError = (info) => info.message;

/** The error result of a call that did not run, its text written by `format`. */
function notRunResult(
  record: CallRecord,
  kind: ToolErrorKind,
  message: string,
  format: FormatToolError,
): ToolResult {
  const { toolCallId, toolName, reason } = record;
  const info =
    reason === undefined ? { kind, toolName, message } : { kind, toolName, message, reason };
  return errorResult(toolCallId, toolName, format(info));
}

/**
 * What the gate decided: the verdict, and the result when the call will not run (its text
 * written by `format`, the loop's `formatToolError` checked).
 */
export function decided<Deps>(
  open: OpenCall<Deps>,
  outcome: GateOutcome,
  format: FormatToolError = asIs,
): void {
  const record = recordWith(open.record, outcome.kind, outcome.by);
  const { toolCallId, toolName } = record;
  if ("call" in outcome) {
    write(open).call = outcome.call;
    record.args = outcome.call.args;
    if (outcome.repaired) record.repairedFrom = record.rawArgs;
  }
  if (outcome.kind === "allow") write(open).parsed = outcome.parsed;
  switch (outcome.kind) {
    case "unavailable":
    case "invalid":
    case "block": {
      record.reason = outcome.message;
      const kind = outcome.kind === "block" ? "blocked" : outcome.kind;
      record.result = notRunResult(record, kind, outcome.message, format);
      break;
    }
    case "deny": {
      if (outcome.reason !== undefined) record.reason = outcome.reason;
      const because = outcome.reason === undefined ? "" : `: ${outcome.reason}`;
      const kind = outcome.by === "approval" ? "refused" : "denied";
      const message = `the call to ${toolName} was denied${because}`;
      record.result = notRunResult(record, kind, message, format);
      break;
    }
    case "result": {
      const json = toJsonOutput(outcome.output);
      if (!json.ok) {
        const hook = Number(outcome.by.slice("hook:".length));
        throw new HookError(
          `${hookName(hook)} answered tool ${toolName} with a result JSON cannot carry: ${json.problem}`,
          hook,
          toolName,
          toolCallId,
        );
      }
      record.result = okResult(toolCallId, toolName, json.output, undefined, json.content);
      break;
    }
    case "stop":
    case "needs-approval":
    case "allow":
      if (outcome.reason !== undefined) record.reason = outcome.reason;
  }
  write(open).record = record;
}

/** A call after a hook stopped the run: it never reaches the gate. */
export function stopped<Deps>(
  open: OpenCall<Deps>,
  stop: { by: DecidedBy; reason?: string },
): void {
  const record = recordWith(open.record, "stop", stop.by);
  if (stop.reason !== undefined) record.reason = stop.reason;
  write(open).record = record;
}

/**
 * A call of a response the provider cut (finish reason `length` or `content-filter`): it may
 * be incomplete, so it never reaches the gate and never runs. It is invalid by the loop's own
 * rule (`by: "default"`), with an error result that says so.
 */
export function cutShort<Deps>(
  open: OpenCall<Deps>,
  finishReason: "length" | "content-filter",
  format: FormatToolError = asIs,
): void {
  const record = recordWith(open.record, "invalid", "default");
  record.reason = `the response was cut (finish reason "${finishReason}") before the model finished it, so the call may be incomplete`;
  const message = `not run: ${record.reason}. Call the tool again if it is still needed${finishReason === "length" ? ", with a shorter answer" : ""}.`;
  record.result = notRunResult(record, "invalid", message, format);
  write(open).record = record;
}

/**
 * A second handoff call of one response: not gated and never run, as only the step's first
 * handoff (`first`, its tool) hands the run over. Not a failure of the tool.
 */
export function notHandedOff<Deps>(
  open: OpenCall<Deps>,
  first: string,
  format: FormatToolError = asIs,
): void {
  const record = recordWith(open.record, "invalid", "default");
  record.reason = `one handoff per step, and this step's is ${first}`;
  record.result = notRunResult(record, "invalid", `not run: ${record.reason}`, format);
  write(open).record = record;
}

/** The call's tool is about to run: checkpoints written from now on mark it started. */
export function started<Deps>(open: OpenCall<Deps>): void {
  const record = recordWith(open.record, open.record.verdict, open.record.by);
  record.started = true;
  write(open).record = record;
}

/**
 * The call's result: a new record without `started`, with how long the tool ran. An ok
 * result of an edited call says so (the model sees the args that ran).
 */
export function settled<Deps>(open: OpenCall<Deps>, result: ToolResult, ms?: number): void {
  const { toolCallId, toolName, rawArgs, args, editedFrom, repairedFrom, verdict, by, reason } =
    open.record;
  const record: CallRecord = { toolCallId, toolName, rawArgs, verdict, by, result };
  if (args !== undefined) record.args = args;
  if (editedFrom !== undefined) record.editedFrom = editedFrom;
  if (repairedFrom !== undefined) record.repairedFrom = repairedFrom;
  if (reason !== undefined) record.reason = reason;
  if (ms !== undefined) record.ms = ms;
  write(open).record = record;
}

/** The result of a tool that ran: its output (and content parts), or its error's text. */
export function ran<Deps>(
  open: OpenCall<Deps>,
  ok: boolean,
  output: unknown,
  ms: number,
  content?: ToolContentPart[],
): void {
  settled(open, resultFor(open.record, ok, output, content), ms);
}

/** A call's result from an output or an error's text; an edited call's says which args ran. */
function resultFor(
  record: CallRecord,
  ok: boolean,
  output: unknown,
  content: ToolContentPart[] | undefined,
): ToolResult {
  const { toolCallId, toolName, editedFrom, args } = record;
  const edited = editedFrom === undefined ? undefined : args;
  return ok
    ? okResult(toolCallId, toolName, output, edited, content)
    : errorResult(toolCallId, toolName, output as string, edited);
}

/** A call that will not run, with why. */
export function notRun<Deps>(open: OpenCall<Deps>, why: string): void {
  const { toolCallId, toolName } = open.record;
  settled(open, errorResult(toolCallId, toolName, why));
}

/** A human approved the call, with edited args (model form) or as it was; `parsed` is what runs. */
export function approved<Deps>(
  open: OpenCall<Deps>,
  args: unknown,
  edited: boolean,
  parsed: unknown,
): void {
  const record = recordWith(open.record, "allow", "approval");
  if (edited) {
    record.editedFrom = open.record.args;
    record.args = args;
  }
  write(open).record = record;
  write(open).call = frozenCall(record.toolCallId, record.toolName, record.args, record.rawArgs);
  write(open).parsed = parsed;
}

/**
 * The call's sub-agent paused for approval: the call waits on the sub-run's state, without a
 * result (nor `started`: it is not running).
 */
export function waitsOnSubRun<Deps>(open: OpenCall<Deps>, state: RunState): void {
  const { started: _running, ...record } = open.record;
  write(open).record = { ...record, subRun: state as unknown as SubRunState };
}

/**
 * A call that waited on its sub-run continues it (`plan`), with `parsed`; the record no longer
 * holds the sub-run's state, so it is never continued twice.
 */
export function continued<Deps>(open: OpenCall<Deps>, parsed: unknown, plan: ResumePlan): void {
  const { subRun: _continued, ...record } = open.record;
  write(open).record = record;
  write(open).parsed = parsed;
  write(open).continues = plan;
}

/** An allowed call to a client-side tool: it does not run here, it waits for its result from `resume()`. */
export function awaitsResult<Deps>(open: OpenCall<Deps>): void {
  const record = recordWith(open.record, open.record.verdict, open.record.by);
  record.external = true;
  write(open).record = record;
}

/** The result of a client-side tool's call, as `resume()` supplied it (`settled` drops `external`). */
export function supplied<Deps>(
  open: OpenCall<Deps>,
  ok: boolean,
  output: unknown,
  content?: ToolContentPart[],
): void {
  settled(open, resultFor(open.record, ok, output, content));
}

/** A call of a checkpoint that had not started: it runs now, with `parsed`. */
export function rerun<Deps>(open: OpenCall<Deps>, parsed: unknown): void {
  write(open).parsed = parsed;
}

/** A human refused the call (the text the model reads written by `format`). */
export function refused<Deps>(
  open: OpenCall<Deps>,
  reason: string | undefined,
  format: FormatToolError = asIs,
): void {
  const { toolName } = open.record;
  const because = reason === undefined ? "" : `: ${reason}`;
  const record = recordWith(open.record, "deny", "approval");
  if (reason !== undefined) record.reason = reason;
  const message = `the call to ${toolName} was refused by a human${because}`;
  record.result = notRunResult(record, "refused", message, format);
  write(open).record = record;
}

/**
 * The loop's `formatToolError`, checked: it gets a frozen copy of the info and must return a
 * string; a throw or anything else is `PolicyError`. Without one, the model reads `message`.
 */
export function errorText(format: FormatToolError | undefined): FormatToolError {
  if (!format) return (info) => info.message;
  return (info: ToolErrorInfo) => {
    let text: unknown;
    try {
      text = format(Object.freeze({ ...info }));
    } catch (error) {
      throw threw("formatToolError", info.toolName, error);
    }
    if (typeof text === "string") return text;
    throw new PolicyError(
      `formatToolError (tool ${info.toolName}) returned ${shortForm(text)}; return the text the model reads, a string`,
      "formatToolError",
      info.toolName,
    );
  };
}
