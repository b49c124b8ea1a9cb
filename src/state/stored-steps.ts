import type { Message, ToolResult } from "../types/messages.js";
import type { StoredStep } from "../types/run-state.js";
import type { CallRecord, StepRecord } from "../types/step-record.js";
import { canonicalJson } from "../util/canonical-json.js";

/**
 * The stored form of each record, kept for runs that take a state at every step (checkpoints
 * to a store): a record never changes. A run that takes one state at its end does not fill it.
 */
const storedForms = new WeakMap<StepRecord, StoredStep>();

/** Whether a tool message's result is a call's result: the same object, in a live run. */
type SameResult = (inMessage: ToolResult, inRecord: ToolResult | undefined) => boolean;
const sameObject: SameResult = (a, b) => a === b;

/**
 * The steps as a state stores them: each finished step whose results are, in call order, the
 * results of one tool message of `messages` names that message instead of holding them again.
 * A step without one (a paused step, a step without calls) is stored as it is. Each record's
 * stored form is made once when `remember` is set (checkpoints) and its link checked on every use,
 * so a snapshot then costs a look per step.
 */
export function storedSteps(
  steps: readonly StepRecord[],
  messages: readonly Message[],
  same: SameResult = sameObject,
  remember = false,
): StoredStep[] {
  let from = 0;
  return steps.map((record) => {
    if (record.calls.length === 0) return record;
    const known = storedForms.get(record);
    if (known?.toolMessage !== undefined && writes(messages[known.toolMessage], record, same)) {
      from = known.toolMessage + 1;
      return known;
    }
    const at = toolMessageOf(record, messages, from, same);
    if (at === undefined) return record;
    from = at + 1;
    const stored: StoredStep = copyOf(record);
    stored.calls = record.calls.map(withoutResult);
    stored.toolMessage = at;
    if (remember && same === sameObject) storedForms.set(record, stored);
    return stored;
  });
}

/** The index of the tool message (from `from` on) that holds the step's results, if any. */
function toolMessageOf(
  record: StepRecord,
  messages: readonly Message[],
  from: number,
  same: SameResult,
): number | undefined {
  for (let at = from; at < messages.length; at++) {
    if (writes(messages[at], record, same)) return at;
  }
  return undefined;
}

/** Whether `message` is the step's tool message: one result per call, each the call's. */
function writes(message: Message | undefined, record: StepRecord, same: SameResult): boolean {
  if (message?.role !== "tool" || message.results.length !== record.calls.length) return false;
  return message.results.every((result, index) => same(result, record.calls[index]!.result));
}

function withoutResult(call: CallRecord): CallRecord {
  return copyOf(call, "result");
}

/**
 * A shallow copy of a record's own fields but `skip`. Records come in many shapes (their
 * optional fields), where a spread goes the slow generic way; a plain loop does not.
 */
function copyOf<T extends object>(record: T, skip?: keyof T): T {
  const copy = {} as T;
  for (const key in record) {
    if (key !== skip) copy[key] = record[key];
  }
  return copy;
}

/**
 * Gives the steps of a checked paused (or running) state their results back from the tool
 * messages they name (the records then share the messages' result objects, so the next state
 * stores them once again). Returns what is wrong when a step names a message that is not its
 * tool message, or the open step (the last, whose results live in its record) names one: the
 * state is damaged, and nothing may run. Changes the state in place (a private copy).
 */
export function withResults(state: {
  messages: Message[];
  steps: StoredStep[];
}): string | undefined {
  let after = -1;
  for (const [index, step] of state.steps.entries()) {
    const at = step.toolMessage;
    if (at === undefined) continue;
    if (index === state.steps.length - 1) {
      return `steps[${index}].toolMessage: the open step keeps its results in its record`;
    }
    const problem = linkProblem(state.messages[at], step, at, after);
    if (problem !== undefined) return `steps[${index}].toolMessage: ${problem}`;
    after = at;
    const { results } = state.messages[at] as Extract<Message, { role: "tool" }>;
    const { toolMessage: _at, ...record } = step;
    state.steps[index] = {
      ...record,
      calls: step.calls.map((call, n) => ({ ...call, result: results[n]! })),
    };
  }
  return undefined;
}

/** Why message `at` cannot be the step's tool message, or undefined when it is. */
function linkProblem(
  message: Message | undefined,
  step: StoredStep,
  at: number,
  after: number,
): string | undefined {
  if (message?.role !== "tool") return `messages[${at}] is not a tool message`;
  if (at <= after) return `messages[${at}] is already the tool message of an earlier step`;
  if (message.results.length !== step.calls.length) {
    return `messages[${at}] has ${message.results.length} results for ${step.calls.length} calls`;
  }
  const wrong = step.calls.findIndex(
    (call, n) =>
      call.result !== undefined ||
      message.results[n]!.toolCallId !== call.toolCallId ||
      message.results[n]!.toolName !== call.toolName,
  );
  if (wrong === -1) return undefined;
  return step.calls[wrong]!.result !== undefined
    ? `calls[${wrong}] has a result of its own`
    : `messages[${at}].results[${wrong}] is not the result of calls[${wrong}]`;
}

/**
 * Version 2 → 3: the same data, each finished step's results stored once (in its tool message).
 * Runs before the state is checked, so it reads the state warily: what it cannot read as
 * steps and messages it leaves as it is, for the schema check to name.
 */
export function fromVersion2(state: unknown): unknown {
  const old = state as { steps?: unknown; messages?: unknown };
  const upgraded = { ...(state as object), version: 3 };
  if (!Array.isArray(old.steps) || !Array.isArray(old.messages)) return upgraded;
  try {
    const steps = storedSteps(old.steps as StepRecord[], old.messages as Message[], sameJson);
    return { ...upgraded, steps };
  } catch {
    return upgraded; // not the shape of a state: the schema check says where
  }
}

/** Whether two results are the same data: a result read back from JSON is a copy. */
function sameJson(a: ToolResult, b: ToolResult | undefined): boolean {
  return b !== undefined && canonicalJson(a) === canonicalJson(b);
}
