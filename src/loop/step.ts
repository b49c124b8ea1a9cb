import { messageOf } from "../errors.js";
import type { PostCallBy } from "../gate/post-call.js";
import type { ResolvedHandoff } from "../options/loop-options.js";
import { freezeJson } from "../tools/args.js";
import { errorResult } from "../tools/tool-output.js";
import type { LoopEvent } from "../types/events.js";
import type { ReachedLimit } from "../types/limits.js";
import type { Message, ToolCall, ToolResult } from "../types/messages.js";
import type { ModelResponse } from "../types/provider.js";
import type {
  CallRecord,
  DecidedBy,
  ModelVerdictRecord,
  StepRecord,
} from "../types/step-record.js";
import type { StoppedBy } from "../types/stop-conditions.js";
import type { OpenCall } from "./call-record.js";
import { notInstalled } from "./feature-slot.js";
import type { ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { notRunByLimit, stepClosed, stepOpened, toolCallsUsedUp } from "./run-record.js";

/**
 * A step's life, from the model's answer to its record: opened on the response (`openStep`,
 * or `reopenStep` for a resumed run's paused step), its record taken for checkpoints
 * (`recordOf`), and closed (`finishStep`: its tool message, its record, how it ended).
 */

/** What a step's record keeps of the tools it offered. */
export type OfferedTools<Deps> = Pick<
  ToolsOfStep<Deps>,
  "shownNames" | "callableTools" | "callableNames" | "toolChoice"
>;

/** A step after its model call, while its calls are gated and run. */
export interface OpenStep<Deps> {
  index: number;
  started: number;
  tools: OfferedTools<Deps>;
  response: StepRecord["response"];
  /** One per call that reached the gate, in call order. */
  calls: OpenCall<Deps>[];
  /** The usage limit that stopped one of its calls from running; the run ends with the step. */
  limit?: ReachedLimit;
  /** What `prepareStep` changed for the step besides its tools, as the record keeps it. */
  steered?: SteeredRecord;
  /**
   * A post-call hook's stop: the run ends with the step. When several calls were stopped, the
   * first in call order (`call`, its index in `calls`) names the stop.
   */
  stop?: { by: PostCallBy; reason?: string; call: number };
  /** What the model-side hooks said in the step (the record's `modelVerdicts`), when they said anything. */
  modelVerdicts?: ModelVerdictRecord[];
  /** The agent running the step, when it has a name (the record's `agent`). */
  agent?: string;
}

/** The fields of a step record that say what `prepareStep` changed besides the tools. */
type SteeredRecord = Pick<StepRecord, "instructions" | "settings" | "provider" | "messages">;

/** Opens a step on the model's response; the run's checkpoints see it from now on. */
export function openStep<Deps>(
  run: RunContext<Deps>,
  index: number,
  started: number,
  tools: OfferedTools<Deps> & Pick<ToolsOfStep<Deps>, "steering">,
  response: ModelResponse,
  modelVerdicts?: ModelVerdictRecord[],
): OpenStep<Deps> {
  const { parts, finishReason, usage } = response;
  const step: OpenStep<Deps> = {
    index,
    started,
    tools,
    response: { parts, finishReason, usage },
    calls: [],
  };
  if (tools.steering) {
    if (!steeringRecord) throw notInstalled("the steering record");
    step.steered = steeringRecord(tools.steering);
  }
  if (modelVerdicts !== undefined && modelVerdicts.length > 0) step.modelVerdicts = modelVerdicts;
  const agent = run.config.options.name;
  if (agent !== undefined) step.agent = agent;
  stepOpened(run, () => recordOf(step));
  return step;
}

/**
 * Opens a paused (or running) state's last step again, with this loop's tools: the first
 * step of a resumed run.
 */
export function reopenStep<Deps>(
  run: RunContext<Deps>,
  record: StepRecord,
  calls: OpenCall<Deps>[],
): OpenStep<Deps> {
  const { tools } = run.config.options;
  const outputTool = run.config.output?.tool;
  const present = (names: string[]) =>
    names.flatMap((name) => (name === outputTool?.name ? outputTool : tools.find(name)) ?? []);
  const offered: OfferedTools<Deps> = {
    shownNames: record.tools,
    callableTools: present(record.callable),
    callableNames: record.callable,
  };
  if (record.toolChoice !== undefined) offered.toolChoice = record.toolChoice;
  const step: OpenStep<Deps> = {
    index: record.index,
    started: performance.now() - record.ms,
    tools: offered,
    response: freezeJson(record.response),
    calls,
  };
  const { instructions, settings, provider, messages } = record;
  const steered: SteeredRecord = {
    ...(instructions !== undefined && { instructions }),
    ...(settings !== undefined && { settings }),
    ...(provider !== undefined && { provider }),
    ...(messages !== undefined && { messages }),
  };
  if (Object.keys(steered).length > 0) step.steered = steered;
  if (record.modelVerdicts !== undefined) step.modelVerdicts = freezeJson(record.modelVerdicts);
  if (record.agent !== undefined) step.agent = record.agent;
  stepOpened(run, () => recordOf(step));
  return step;
}

/** The step as a record: a copy, so later changes to the open step do not reach it. */
export function recordOf<Deps>(step: OpenStep<Deps>): StepRecord {
  const record: StepRecord = {
    index: step.index,
    // Spread, not slice(): these lists are frozen, and slice() of a frozen array is ~15× slower.
    tools: [...step.tools.shownNames],
    callable: [...step.tools.callableNames],
    response: step.response,
    calls: step.calls.map((call): CallRecord => call.record),
    usage: step.response.usage,
    ms: performance.now() - step.started,
  };
  if (step.tools.toolChoice !== undefined) record.toolChoice = step.tools.toolChoice;
  if (step.modelVerdicts !== undefined) record.modelVerdicts = [...step.modelVerdicts];
  if (step.agent !== undefined) record.agent = step.agent;
  return step.steered ? { ...record, ...step.steered } : record;
}

/** How a step ended, for the loop to decide what comes next. */
export type StepOutcome =
  | { kind: "continue"; handoff?: TakenHandoff<any> }
  | { kind: "completed"; output?: { value: unknown } }
  | { kind: "stopped"; reason?: string }
  | { kind: "ended"; endedBy: ToolCall }
  | { kind: "paused"; endedBy?: ToolCall }
  | { kind: "limit"; limit: ReachedLimit }
  | { kind: "condition"; stoppedBy: StoppedBy };

/**
 * Closes the step: writes its tool message (every call's result, in call order) unless calls
 * still wait for approval, records the step, emits `step-finish`, and says how it ended: the
 * model answered without calls, a hook stopped the run, a usage limit stopped a call, a call
 * ended it, calls wait for approval, or the loop goes on.
 */
export function finishStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  how: Ending = {},
): StepOutcome {
  const outcome = outcomeOf(step, how);
  const results =
    step.calls.length > 0 && outcome.kind !== "paused"
      ? step.calls.map((open) => open.record.result!)
      : undefined;
  stepClosed(run, recordOf(step), results);
  if (outcome.kind !== "continue" || !run.config.options.handoffs) return outcome;
  const handoff = handoffOfStep(run, step);
  return handoff ? { kind: "continue", handoff } : outcome;
}

/** A handoff a closed step made: the handoff, and the call that made it. */
export interface TakenHandoff<Deps> {
  readonly handoff: ResolvedHandoff<Deps>;
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
}

/**
 * The handoff a step makes: its first call of one of the agent's handoff tools that the gate
 * allowed and that ran (a denied, blocked or failed one hands nothing over).
 */
function handoffOfStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): TakenHandoff<Deps> | undefined {
  for (const open of step.calls) {
    const handoff = handoffOf(run, open);
    const { verdict, result, toolCallId, toolName } = open.record;
    if (handoff && verdict === "allow" && result?.isError === false) {
      return { handoff, step: step.index, toolCallId, toolName };
    }
  }
  return undefined;
}

/**
 * The handoff a call is to: one of the agent's handoffs whose own tool it calls (matched by
 * the tool object, not the name, so a `prepareStep` tool of that name hands nothing over).
 */
export function handoffOf<Deps>(
  run: RunContext<Deps>,
  open: OpenCall<Deps>,
): ResolvedHandoff<Deps> | undefined {
  const handoff = run.config.options.handoffs?.get(open.record.toolName);
  return handoff !== undefined && open.tool === handoff.tool ? handoff : undefined;
}

/** What ended a step with calls: a hook's stop, a usage limit, or a call whose result ends the run. */
interface Ending {
  /** A pre-call hook's stop, or a post-call hook's (`OpenStep.stop`). */
  stop?: Pick<Stop, "reason"> | undefined;
  limit?: ReachedLimit | undefined;
  endedBy?: ToolCall | undefined;
}

function outcomeOf<Deps>(step: OpenStep<Deps>, { stop, limit, endedBy }: Ending): StepOutcome {
  if (step.calls.length === 0) return { kind: "completed" };
  if (stop)
    return stop.reason === undefined
      ? { kind: "stopped" }
      : { kind: "stopped", reason: stop.reason };
  if (limit) return { kind: "limit", limit };
  if (step.calls.some((open) => !open.record.result)) {
    return endedBy ? { kind: "paused", endedBy } : { kind: "paused" };
  }
  return endedBy ? { kind: "ended", endedBy } : { kind: "continue" };
}

/**
 * The transcript an error that ends a run carries: the run's messages, and when they end with
 * an assistant message whose calls have no results yet (the run failed mid-step, or while
 * writing a paused state), a tool message for it — each call's result where it has one, else
 * "outcome unknown" for a call that had started (an abort does not wait for it), else "not
 * run" — so every tool call still has exactly one result.
 */
export function transcriptOnFailure<Deps>(run: RunContext<Deps>, error: unknown): Message[] {
  const messages = run.messages.slice();
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return messages;
  const parts = last.parts.filter((part) => part.type === "tool-call");
  if (parts.length === 0) return messages;
  const calls = run.stepInProgress?.().calls ?? run.steps[run.steps.length - 1]?.calls ?? [];
  const results = parts.map((part) => {
    const call = calls.find((call) => call.toolCallId === part.id);
    if (call?.result) return call.result;
    const what = call?.started
      ? "outcome unknown: the run failed while this call ran"
      : "not run: the run failed";
    return errorResult(part.id, part.name, `${what} (${messageOf(error)})`);
  });
  messages.push(toolMessage(results));
  return messages;
}

/** The tool message of a step: every call's result, in call order. */
function toolMessage(results: ToolResult[]): Message {
  return { role: "tool", results };
}

/** A hook's stop: who stopped the run, and why. */
export interface Stop {
  by: DecidedBy;
  reason?: string;
}

/**
 * After a step's executions: the limit that ends the run with this step, if any. That is the
 * limit that stopped one of its calls, or, when calls wait for approval and no tool may run
 * any more, `toolCalls` (an approval could not let them run; a client-side call waiting for its
 * result was counted when it was allowed). The step's calls still without
 * a result then get "not run: limit reached", so every call has its one result.
 */
export function limitOfStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): ReachedLimit | undefined {
  const waiting = step.calls.filter((open) => !open.record.result);
  // A client-side call that waits for its result was counted already; a call waiting for approval was not.
  const unapproved = waiting.some((open) => !open.record.external);
  const limit = step.limit ?? (unapproved ? toolCallsUsedUp(run) : undefined);
  if (!limit) return undefined;
  for (const open of waiting) notRunByLimit(open, limit);
  resultEvents(run, step.index, waiting);
  return limit;
}

/** `tool-result` events for the calls that already have a result, in call order. */
export function resultEvents<Deps>(
  run: RunContext<Deps>,
  step: number,
  calls: readonly OpenCall<Deps>[],
): void {
  if (!run.listening()) return;
  for (const open of calls)
    if (open.record.result) run.emit(resultEvent(run, step, open.record, 0));
}

/** The `tool-result` event of a call that has its result. */
export function resultEvent<Deps>(
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

/** The `tool-error` event of a call whose tool threw (or returned a value JSON cannot carry). */
export function errorEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  record: CallRecord,
  error: unknown,
): LoopEvent {
  const event: LoopEvent = {
    type: "tool-error",
    runId: run.runId,
    step,
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    error,
  };
  const stack = stackOf(error);
  if (stack !== undefined) event.stack = stack;
  return event;
}

/** An error's stack, when it has one as text; never throws (a getter may). */
function stackOf(error: unknown): string | undefined {
  try {
    const stack = (error as { stack?: unknown } | null)?.stack;
    return typeof stack === "string" ? stack : undefined;
  } catch {
    return undefined;
  }
}

/** The `tool-decision` event of a call the gate (or a human) decided. */
export function decisionEvent<Deps>(
  run: RunContext<Deps>,
  step: number,
  open: OpenCall<Deps>,
): LoopEvent {
  const { record } = open;
  const event: LoopEvent = {
    type: "tool-decision",
    runId: run.runId,
    step,
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    verdict: record.verdict,
    by: record.by,
  };
  if (open.call) event.call = open.call;
  if (record.reason !== undefined) event.reason = record.reason;
  return event;
}

let steeringRecord: typeof import("./step-steering.js").steeringRecord | undefined;

/** Installs what a step's record keeps of `prepareStep`'s steering (`step-features.ts`, once loaded). */
export function installSteeringRecord(record: NonNullable<typeof steeringRecord>): void {
  steeringRecord = record;
}
