import type { CallCounts, UsageLimits } from "../types/limits.js";
import type { Message, ToolCall, Usage } from "../types/messages.js";
import type {
  DeniedCall,
  RememberedDecision,
  RunState,
  StoredStep,
  SubRunParent,
} from "../types/run-state.js";
import type { StepRecord } from "../types/step-record.js";
import { zeroUsage } from "../util/usage.js";
import { mergeLimits, NO_LIMITS } from "../util/usage-limits.js";
import { RUN_STATE_VERSION } from "./run-state.js";
import { storedSteps } from "./stored-steps.js";

/**
 * A run's data: what a `RunState` holds and a live run appends to. `messages` and `steps` only
 * grow, and every value appended is never changed again.
 */
export interface RunData {
  readonly runId: string;
  readonly maxSteps: number;
  readonly messages: readonly Message[];
  /** The finished steps (the open one, while a step runs, is `stepInProgress()`). */
  readonly steps: readonly StepRecord[];
  readonly usage: Usage;
  /** Failures so far per tool name. */
  readonly retries: ReadonlyMap<string, number>;
  /** Calls to tools that were not callable so far, per tool name. */
  readonly unavailableCalls: ReadonlyMap<string, number>;
  /** Names of tools that executed successfully, in order. */
  readonly executed: readonly string[];
  /** Calls a human refused in this run. */
  readonly denied: readonly DeniedCall[];
  /** Decisions remembered for the rest of the run (`remember: "tool"`), one per tool. */
  readonly remembered: readonly RememberedDecision[];
  /** The run's usage limits: the loop's, with the run's own over them, key by key. */
  readonly limits: Readonly<UsageLimits>;
  /** Model calls and tool executions so far, counted against `limits`. */
  readonly callCounts: Readonly<CallCounts>;
  /** The record of the step in progress, for checkpoints; set while a step is open. */
  readonly stepInProgress: (() => StepRecord) | undefined;
  /** A sub-agent's run: the run and call that started it. */
  readonly parent?: SubRunParent | undefined;
  /** The agent holding the run (its loop's `name`), when it has one; a handoff changes it. */
  readonly agent?: string | undefined;
}

/**
 * The state of a run as it stands, with the open step (if any) as its last step. Taken at
 * once (nothing awaited), so it is one consistent moment of the run; `sealState` adds the
 * pending list and the signature. `restore` is its inverse. A finished step's results are
 * stored once, in its tool message (`storedSteps`).
 */
export function snapshot(
  run: RunData,
  status: RunState["status"],
  extras: { endedBy?: ToolCall; checkpoint?: boolean } = {},
): RunState {
  const messages = run.messages.slice();
  const steps: StoredStep[] = storedSteps(run.steps, messages, undefined, extras.checkpoint);
  const open = run.stepInProgress?.();
  if (open) steps[open.index] = open;
  const state: RunState = {
    version: RUN_STATE_VERSION,
    stateId: crypto.randomUUID(),
    runId: run.runId,
    status,
    messages,
    steps,
    usage: run.usage,
    maxSteps: run.maxSteps,
    retries: Object.fromEntries(run.retries),
    unavailableCalls: Object.fromEntries(run.unavailableCalls),
    executed: run.executed.slice(),
    denied: run.denied.slice(),
    limits: { ...run.limits },
    callCounts: { ...run.callCounts },
  };
  if (run.remembered.length > 0) state.remembered = run.remembered.map((d) => ({ ...d }));
  if (extras.endedBy) state.endedBy = extras.endedBy;
  if (run.parent) state.parent = { ...run.parent };
  if (run.agent !== undefined) state.agent = run.agent;
  return state;
}

/**
 * A finished run's data alone, for a state taken later (`withLazyState`): without what the live
 * run holds beside it (its configuration, deps, abort, listeners), which a caller holding the
 * result would otherwise keep alive. The lists are the run's own: nothing appends to them once
 * it has ended.
 */
export function endedRunData(run: RunData): RunData {
  const data: RunData = {
    runId: run.runId,
    maxSteps: run.maxSteps,
    messages: run.messages,
    steps: run.steps,
    usage: run.usage,
    retries: run.retries,
    unavailableCalls: run.unavailableCalls,
    executed: run.executed,
    denied: run.denied,
    remembered: run.remembered,
    limits: run.limits,
    callCounts: run.callCounts,
    stepInProgress: undefined,
    parent: run.parent,
    agent: run.agent,
  };
  return data;
}

/**
 * The run's data from a checked paused (or running) state, without its open step: the
 * resumed run finishes that step first and records it then. The run keeps its limits; a limit
 * of the loop's that the state lacks applies too (`loopLimits`).
 */
export function restore(state: RunState, loopLimits: Readonly<UsageLimits> = NO_LIMITS): RunData {
  return {
    runId: state.runId,
    maxSteps: state.maxSteps,
    // Spread, not slice(): a checked state is frozen, and slice() of a frozen array is slow.
    messages: [...state.messages],
    steps: state.steps.slice(0, -1),
    usage: state.usage,
    retries: new Map(Object.entries(state.retries)),
    unavailableCalls: new Map(Object.entries(state.unavailableCalls)),
    executed: [...state.executed],
    denied: [...state.denied],
    remembered: state.remembered?.map((d) => ({ ...d })) ?? [],
    ...(state.parent ? { parent: state.parent } : {}),
    ...(state.agent === undefined ? {} : { agent: state.agent }),
    limits: mergeLimits(loopLimits, state.limits),
    callCounts: state.callCounts ? { ...state.callCounts } : countedCalls(state),
    stepInProgress: undefined,
  };
}

/**
 * What a state written before `callCounts` existed has used: a model call per step, and a
 * tool execution per call that ran (it has `ms`) or had started.
 */
function countedCalls(state: RunState): CallCounts {
  const calls = state.steps.flatMap((step) => step.calls);
  return {
    modelCalls: state.steps.length,
    toolCalls: calls.filter((call) => call.started === true || call.ms !== undefined).length,
  };
}

/** A new run's data: its id, its step budget, its usage limits and its first messages. */
export function freshRun(
  runId: string,
  maxSteps: number,
  messages: Message[],
  limits: Readonly<UsageLimits> = NO_LIMITS,
): RunData {
  return {
    runId,
    maxSteps,
    messages,
    steps: [],
    usage: zeroUsage(),
    retries: new Map(),
    unavailableCalls: new Map(),
    executed: [],
    denied: [],
    remembered: [],
    limits,
    callCounts: { modelCalls: 0, toolCalls: 0 },
    stepInProgress: undefined,
  };
}
