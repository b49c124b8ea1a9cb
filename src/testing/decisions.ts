import type { CallRecord, DecidedBy, RunResult, StepRecord, Verdict } from "tollgate";
import { checkKeys } from "../util/option-keys.js";

/**
 * One tool call of a run, as the gate decided it: the row of a decision table.
 *
 * `args` are the call's final args (after hooks and a human's edit), or, when they never passed
 * (bad JSON, the schema, a tool not callable), the args text as the model sent it.
 */
export interface CallDecision {
  /** The step the call was made in (0-based, as `StepRecord.index`). */
  step: number;
  tool: string;
  args: unknown;
  verdict: Verdict;
  by: DecidedBy;
  /** The reason given with the verdict (a deny's, a block's message, a stop's), when one was. */
  reason?: string;
  toolCallId: string;
  /** The loop ran the tool's `execute` for this call (it settled, ok or not). */
  ran: boolean;
  /**
   * What the call still waits for when the run paused: a human's decision (`"approval"`), a
   * client-side tool's result (`"result"`), or its sub-agent's paused run (`"sub-run"`).
   */
  waitsFor?: "approval" | "result" | "sub-run";
}

const statuses = new Set([
  "completed",
  "max_steps",
  "stopped",
  "ended_by_tool",
  "needs_approval",
  "needs_results",
  "limit_reached",
  "stopped_by_condition",
]);

/**
 * Every tool call of a run, in order, with the gate's verdict on each: `{ step, tool, args,
 * verdict, by, reason }` (plus `toolCallId`, `ran` and, for a paused run, `waitsFor`). Works on
 * every `RunResult`, whatever its status (completed, paused, stopped, limit reached, ...).
 *
 * Only the run's own calls are listed: a sub-agent (`loop.asTool`) is one call of its parent,
 * and its own calls are in the sub-agent's run. A thrown error carries its transcript
 * (`messages`), not the step records, so it has no decisions to read: anything that is not a
 * `RunResult` is a `TypeError` saying what it got.
 *
 * @example
 * const result = await loop.run("Tidy up my notes");
 * for (const d of decisionsOf(result)) console.log(d.step, d.tool, d.verdict, d.by);
 */
export function decisionsOf(result: RunResult<unknown>): CallDecision[] {
  const steps = stepsOf(result, "decisionsOf");
  const decisions: CallDecision[] = [];
  for (const step of steps) {
    for (const call of step.calls) decisions.push(decisionOf(step.index, call));
  }
  return decisions;
}

/**
 * The steps of a value that must be a `RunResult`, or a `TypeError` from `caller` saying what
 * the value is instead.
 */
function stepsOf(value: unknown, caller: string): StepRecord[] {
  const problem = notARunResult(value);
  if (problem !== undefined) {
    throw new TypeError(
      `${caller}: expected a RunResult (what loop.run() resolves with), ${problem}`,
    );
  }
  return (value as RunResult<unknown>).steps;
}

/** Why a value is not a `RunResult`, or undefined when it is one. */
function notARunResult(value: unknown): string | undefined {
  if (value instanceof Error) {
    return `got ${value.name}: "${value.message}" (a run that threw has no decisions to read, only its transcript on error.messages)`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `got ${describe(value)}`;
  }
  if (typeof (value as { then?: unknown }).then === "function") {
    return "got a promise (await loop.run() first)";
  }
  const { status, steps } = value as { status?: unknown; steps?: unknown };
  if (typeof status !== "string" || !statuses.has(status)) {
    return `got an object whose status is ${describe(status)}`;
  }
  if (!Array.isArray(steps)) return `got an object whose steps are ${describe(steps)}`;
  for (const [at, step] of steps.entries()) {
    const { index, calls } = (step ?? {}) as { index?: unknown; calls?: unknown };
    if (typeof index !== "number" || !Array.isArray(calls)) {
      return `got an object whose steps[${at}] is not a step record (no index or calls)`;
    }
    for (const [n, call] of calls.entries()) {
      const { toolName, verdict, by } = (call ?? {}) as Record<string, unknown>;
      if (typeof toolName !== "string" || typeof verdict !== "string" || typeof by !== "string") {
        return `got an object whose steps[${at}].calls[${n}] is not a call record (no toolName, verdict or by)`;
      }
    }
  }
  return undefined;
}

function decisionOf(step: number, call: CallRecord): CallDecision {
  const decision: CallDecision = {
    step,
    tool: call.toolName,
    args: "args" in call ? call.args : call.rawArgs,
    verdict: call.verdict,
    by: call.by,
    toolCallId: call.toolCallId,
    ran: call.verdict === "allow" && call.result !== undefined && call.ms !== undefined,
  };
  if (call.reason !== undefined) decision.reason = call.reason;
  if (call.result === undefined) {
    if (call.verdict === "needs-approval") decision.waitsFor = "approval";
    else if (call.external === true) decision.waitsFor = "result";
    else if (call.subRun !== undefined) decision.waitsFor = "sub-run";
  }
  return decision;
}

/** A short description of a value for error messages: "null", "an array", "a number (3)". */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 40))})`;
  if (typeof value === "number" || typeof value === "boolean") {
    return `a ${typeof value} (${String(value)})`;
  }
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Options of `formatDecisions`. */
export interface FormatDecisionsOptions {
  /** Longest args text in a row before it is cut with "…" (default 60). */
  argsWidth?: number | undefined;
}

/**
 * The decisions as an aligned text table (step | tool | args | verdict | by | reason), args as
 * short JSON; "(no tool calls)" when there are none.
 *
 * @example
 * console.log(formatDecisions(decisionsOf(result)));
 */
export function formatDecisions(
  decisions: readonly CallDecision[],
  options: FormatDecisionsOptions = {},
): string {
  if (!Array.isArray(decisions)) {
    throw new TypeError(
      `formatDecisions: expected the array decisionsOf() returns, got ${describe(decisions)}`,
    );
  }
  checkKeys("formatDecisions", options, ["argsWidth"]);
  decisions.forEach((decision, index) => {
    const d = decision as Partial<CallDecision> | null;
    if (
      typeof d !== "object" ||
      d === null ||
      typeof d.step !== "number" ||
      typeof d.tool !== "string" ||
      typeof d.verdict !== "string" ||
      typeof d.by !== "string"
    ) {
      throw new TypeError(
        `formatDecisions: decisions[${index}] is ${describe(decision)}, not a decision (give it what decisionsOf(result) returns)`,
      );
    }
  });
  const width = options.argsWidth ?? 60;
  if (!Number.isInteger(width) || width < 5) {
    throw new TypeError(
      `formatDecisions: argsWidth must be an integer of at least 5, got ${String(width)}`,
    );
  }
  if (decisions.length === 0) return "(no tool calls)";
  const header = ["step", "tool", "args", "verdict", "by", "reason"];
  const rows = decisions.map((d) =>
    [String(d.step), d.tool, short(d.args, width), d.verdict, d.by, reasonOf(d)].map(cell),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join(" | ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The reason column: why the gate decided, else what the call waits for, else whether it ran. */
function reasonOf(d: CallDecision): string {
  if (d.reason !== undefined) return d.reason;
  if (d.waitsFor !== undefined) return `(waits for ${d.waitsFor})`;
  return d.verdict === "allow" && !d.ran ? "(did not run)" : "";
}

/** A cell's text on one line, its `|` escaped, so that no value breaks the table. */
function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|");
}

/** The args as one line of JSON (or the raw text as sent), cut to `width` characters. */
function short(args: unknown, width: number): string {
  let text: string;
  try {
    text = typeof args === "string" ? args : (JSON.stringify(args) ?? String(args));
  } catch {
    text = String(args);
  }
  text = text.replace(/\s+/g, " ");
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
