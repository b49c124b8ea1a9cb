import { ResumeError } from "../errors.js";
import type { CallRecord } from "../types/step-record.js";
import { isPaused, type RunState } from "./run-state.js";

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

/** The decisions of a resume, sorted: the run's own by call id, and those for each sub-run. */
export interface RoutedDecisions<D> {
  /** Decisions for the open step's own calls, by call id. */
  own: Record<string, D>;
  /** Decisions for each sub-run, by the id of the call that waits on it, keyed as that sub-run keys them. */
  nested: Map<string, Record<string, D>>;
  /** Each decision for a call of a sub-run, with the call: its digest is checked against this state. */
  forSubRuns: { call: WaitingCall; decision: D }[];
}

/**
 * Sorts decisions by the call they decide. A key is a waiting call's `key`, or a nested call's
 * bare id when no other waiting call has that id. A key that names no waiting call, or a bare
 * id two calls share, is a `ResumeError`. A decision passed on to a sub-run loses its digest:
 * it was checked against this (the outer) state, which holds the sub-run's.
 */
export function routeDecisions<D extends object>(
  waiting: WaitingCall[],
  decisions: Record<string, D>,
): RoutedDecisions<D> {
  const byKey = new Map(waiting.map((call) => [call.key, call]));
  const routed: RoutedDecisions<D> = { own: {}, nested: new Map(), forSubRuns: [] };
  for (const [key, decision] of Object.entries(decisions)) {
    const call = byKey.get(key) ?? byBareId(waiting, key);
    if (call.path.length === 0) {
      routed.own[key] = decision;
      continue;
    }
    routed.forSubRuns.push({ call, decision });
    const [first, ...rest] = call.path as [string, ...string[]];
    const inner = routed.nested.get(first) ?? {};
    const { digest: _checkedHere, ...passed } = decision as D & { digest?: unknown };
    inner[[...rest, call.record.toolCallId].join("/")] = passed as D;
    routed.nested.set(first, inner);
  }
  return routed;
}

function byBareId(waiting: WaitingCall[], id: string): WaitingCall {
  const matches = waiting.filter((call) => call.path.length > 0 && call.record.toolCallId === id);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new ResumeError(
      `${matches.length} pending calls have the id "${id}" (in different sub-runs); key each decision by its path: ${matches.map((call) => `"${call.key}"`).join(", ")}`,
    );
  }
  throw new ResumeError(
    `no pending call has the id "${id}"; pending: ${waiting.map((call) => call.key).join(", ") || "none"}`,
  );
}
