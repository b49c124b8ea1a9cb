import type { RunState } from "../types/run-state.js";
import type { CallRecord } from "../types/step-record.js";
import { isPaused } from "./run-state.js";

/**
 * What resuming a parent needs of a sub-agent tool (`loop.asTool`): how to check its paused
 * sub-run's state with the decisions meant for it, before anything runs.
 */
export interface SubAgent {
  /** The sub-run's checked resume plan; throws `ResumeError` when the state or decisions do not fit. */
  plan(state: RunState, decisions: Record<string, unknown>): Promise<unknown>;
}

/**
 * Sub-agent tools by their `execute` function: a spread copy of a tool (`withMaxRetries`)
 * keeps it, so the copy is still known as the sub-agent it runs.
 */
const subAgents = new WeakMap<object, SubAgent>();

/** Marks a tool's `execute` as a sub-agent's. */
export function registerSubAgent(execute: object, agent: SubAgent): void {
  subAgents.set(execute, agent);
}

/** The sub-agent a tool runs, if it is one. */
export function subAgentOf(tool: { execute: unknown } | undefined): SubAgent | undefined {
  const execute = tool?.execute;
  return typeof execute === "function" ? subAgents.get(execute) : undefined;
}

/** A call waiting for a human's decision, in a paused state or in a sub-run nested in it. */
export interface WaitingCall {
  /** How decisions name it: its id behind the ids of the sub-agent calls it is nested in ("c1/c7"). */
  key: string;
  /** The ids of the sub-agent calls it is nested in, outermost first; empty for the run's own. */
  path: string[];
  /** The run whose call it is. */
  runId: string;
  record: CallRecord;
}

/**
 * The calls a paused (or running) state waits on a human (or a client-side tool's result) for,
 * in call order: its open step's own, and, for a call that waits on a paused sub-run, the
 * sub-run's, at any depth.
 */
export function waitingCalls(state: RunState, path: string[] = []): WaitingCall[] {
  if (!isPaused(state.status) && state.status !== "running") return [];
  const open = state.steps[state.steps.length - 1];
  const waiting: WaitingCall[] = [];
  for (const record of open?.calls ?? []) {
    if (record.result) continue;
    if (record.subRun) {
      waiting.push(
        ...waitingCalls(record.subRun as unknown as RunState, [...path, record.toolCallId]),
      );
    } else if (record.verdict === "needs-approval" || record.external) {
      const key = [...path, record.toolCallId].join("/");
      waiting.push({ key, path, runId: state.runId, record });
    }
  }
  return waiting;
}
