/**
 * A paused run of a durable engine (DBOS, Restate): what it waits for, the digests that bind
 * decisions to it, and the checks a decision passes. Both backends share it, so a decision
 * means the same on either.
 */
import type { RunResult } from "../types/run-result.js";
import { canonicalJson, sameHex, sha256Hex } from "./canonical-json.js";
import { isPlainObject, kindOf } from "./values.js";

/** One decision as `resume()` takes it: the core's `ApprovalDecision | ExternalResult`, structurally. */
export type PauseDecision =
  | { approve: true; args?: unknown; remember?: "tool" }
  | { approve: false; reason?: string; remember?: "tool" }
  | { result: unknown }
  | { error: string };

/** A resume's decisions, by key. */
type ApprovalDecisions = Record<string, PauseDecision>;

/** What the model reads for a non-idempotent call that started in an execution that stopped. */
export const OUTCOME_UNKNOWN =
  "outcome unknown: the process stopped while this call ran, and it is not run again (the tool is not idempotent)";

/** One call a pause waits on. */
export interface WaitingCall {
  toolCallId: string;
  toolName: string;
  /** The args in the model's form, as the call would run with them. */
  args: unknown;
  /** Why it waits for approval, when the gate said. */
  reason?: string;
  /** The key its decision goes under: its id, or `path/…/id` inside a sub-agent. */
  key: string;
  /**
   * SHA-256 of (run, pause, key, tool, args): a decision carrying it was made for exactly this
   * call in exactly this pause. It stays the same when the engine replays the run.
   */
  digest: string;
}

/** What a paused run waits for: calls to approve, and client-side calls waiting for results. */
export interface Pause {
  runId: string;
  /** The run's pauses counted from 0: decisions go to one pause. */
  pause: number;
  pending: WaitingCall[];
  external: WaitingCall[];
}

type Called = {
  toolCallId: string;
  toolName: string;
  args: unknown;
  reason?: string;
  subRun?: { path: string[] };
};

/** The pause a paused result describes, with the digests its decisions must carry. */
export async function pauseOf(
  engine: string,
  runId: string,
  pause: number,
  result: RunResult,
): Promise<Pause> {
  const waiting = (calls: readonly Called[] = []) =>
    Promise.all(
      calls.map(async (call): Promise<WaitingCall> => {
        const key = call.subRun
          ? [...call.subRun.path, call.toolCallId].join("/")
          : call.toolCallId;
        const digest = await sha256Hex(
          canonicalJson([`tollgate/${engine}`, runId, pause, key, call.toolName, call.args]),
        );
        const { toolCallId, toolName, args } = call;
        return call.reason === undefined
          ? { toolCallId, toolName, args, key, digest }
          : { toolCallId, toolName, args, reason: call.reason, key, digest };
      }),
    );
  return {
    runId,
    pause,
    pending: await waiting(result.pending),
    external: await waiting(result.external),
  };
}

const DECISION_KEYS = new Set(["approve", "args", "reason", "digest", "remember"]);
const RESULT_KEYS = new Set(["result", "error", "digest"]);

/**
 * The decisions of a message sent to a pause, checked: one for every call it waits on, each
 * with that call's digest, and none for any other. Resolves with them (digests removed: the
 * loop's own are its state's), or with why they are refused.
 */
export async function checkDecisions(
  pause: Pause,
  message: unknown,
): Promise<ApprovalDecisions | string> {
  if (
    !isPlainObject(message) ||
    message.pause !== pause.pause ||
    !isPlainObject(message.decisions)
  ) {
    return `expected { pause: ${pause.pause}, decisions }, got ${kindOf(message)}`;
  }
  const given = message.decisions;
  const calls = [...pause.pending, ...pause.external];
  const unknown = Object.keys(given).filter((key) => !calls.some((call) => call.key === key));
  if (unknown.length > 0) return `no call ${unknown.join(", ")} waits in pause ${pause.pause}`;
  const decisions: ApprovalDecisions = {};
  for (const call of calls) {
    const decision = given[call.key];
    const isResult = pause.external.includes(call);
    if (!isPlainObject(decision)) return `no decision for ${call.toolName} (${call.key})`;
    const keys = isResult ? RESULT_KEYS : DECISION_KEYS;
    const extra = Object.keys(decision).find((key) => !keys.has(key));
    if (extra !== undefined) return `unexpected field ${extra} in the decision for ${call.key}`;
    if (typeof decision.digest !== "string" || !sameHex(decision.digest, call.digest)) {
      return `the decision for ${call.toolName} (${call.key}) does not carry its digest: it was made for another call or pause`;
    }
    const { digest: _digest, ...rest } = decision;
    // Its fields' values are resume()'s to check, as for any decision.
    decisions[call.key] = rest as PauseDecision;
  }
  return decisions;
}

/**
 * What `decide()` did with a pause's decisions:
 * - `"taken"`: the run took them and went on;
 * - `"refused"`: the run refused them (it keeps waiting; its refusal says why);
 * - `"sent"`: they are with the engine, and the run did not take or refuse them within 10 s;
 * - `"not-waiting"`: the run does not wait in that pause (it went on, ended, or has not come
 *   to it), or it went on with other decisions: these were not taken.
 */
export type DecideOutcome = "taken" | "refused" | "sent" | "not-waiting";

/**
 * Following and deciding a durable agent's runs: the same on DBOS and Restate (`Decisions` is
 * the core's `ApprovalDecisions`, which `util/` does not import).
 */
export interface DurableRuns<Decisions> {
  /**
   * The run's result once it ends (a paused run has not ended: it waits inside the engine).
   * Rejects after `timeoutMs` (default: no limit) when the run has not ended by then.
   */
  result(runId: string, options?: { timeoutMs?: number }): Promise<RunResult>;
  /**
   * What the run waits for now, if it is paused: the calls waiting for approval and the
   * client-side calls waiting for results, each with the digest a decision must carry.
   * `timeoutMs` (default 0) waits for a pause to come; `after` (a pause's number) waits for a
   * later pause than that one. `undefined` when none comes in time.
   */
  waiting(
    runId: string,
    options?: { timeoutMs?: number; after?: number },
  ): Promise<Pause | undefined>;
  /**
   * Sends the decisions for a pause (every call it waits on, each with its `digest`). The run
   * checks them as `resume()` does: decisions for another pause, a wrong digest or a missing
   * call are refused and the run keeps waiting; the same decisions sent twice run once.
   * Resolves with what became of them (`DecideOutcome`).
   */
  decide(runId: string, pause: number, decisions: Decisions): Promise<DecideOutcome>;
}

/** A refused decision message, as the run publishes its latest. */
export interface Refusal {
  pause: number;
  reason: string;
  /** The refused message's key (`decisionKey`), so its sender can tell it was theirs. */
  key: string;
}

/** The key of a decision message: a hash of its content, so the same decisions count once. */
export function decisionKey(pause: number, decisions: unknown): Promise<string> {
  return sha256Hex(canonicalJson({ pause, decisions }));
}

/** The key of a message a pause received: its decisions' `decisionKey`, "" for one without. */
export async function keyOfMessage(pause: number, message: unknown): Promise<string> {
  if (!isPlainObject(message)) return "";
  try {
    return await decisionKey(pause, message.decisions);
  } catch {
    return ""; // not JSON: refused by checkDecisions
  }
}

/** Decisions that refuse every call of a pause, saying why. */
export function refusalOf(pause: Pause, reason: string): ApprovalDecisions {
  const decisions: ApprovalDecisions = {};
  for (const call of pause.pending) decisions[call.key] = { approve: false, reason };
  for (const call of pause.external) decisions[call.key] = { error: reason };
  return decisions;
}
