import { ResumeError } from "../../errors.js";
import { closest } from "../../util/option-keys.js";
import { isPlainObject } from "../../util/values.js";
import type { WaitingCall } from "../sub-runs.js";
import { HEX64 } from "./trust.js";

/**
 * A human's decision on one pending call; `digest` binds it to the exact call (and state) it
 * was made for. `Args` types edited args: `ApprovalDecision<ToolInput<typeof sendEmail>>`, or
 * narrow the pending call with `isCallTo(pending, sendEmail)` first.
 */
export type ApprovalDecision<Args = unknown> =
  | {
      approve: true;
      args?: Args | undefined;
      digest?: string | undefined;
      /** `"tool"`: every later call of this tool in the run that would wait for approval runs. */
      remember?: "tool" | undefined;
    }
  | {
      approve: false;
      reason?: string | undefined;
      digest?: string | undefined;
      /** `"tool"`: every later call of this tool in the run is refused without asking. */
      remember?: "tool" | undefined;
    };

/**
 * A client-side tool's result, given on resume for one of `external`: its output (checked
 * against the tool's `output` schema, stored as JSON), or an error the model reads as the
 * call's error result. `digest` (from the `ExternalCall`) binds it to that call in that state.
 */
export type ExternalResult =
  | { result: unknown; digest?: string | undefined }
  | { error: string; digest?: string | undefined };

/**
 * What `resume()` takes, by tool call id: a decision for every pending call and a result for
 * every client-side call waiting (`external`), in one object; no entry for any other id.
 */
export type ApprovalDecisions = Record<string, ApprovalDecision | ExternalResult>;

const DECISION_KEYS = ["approve", "args", "reason", "digest", "remember"];
const RESULT_KEYS = ["result", "error", "digest"];

/**
 * The decisions, each checked for shape: `{ approve: true, args?, digest? }` or
 * `{ approve: false, reason?, digest? }`, or a client-side call's result entry. Checked before
 * any is matched to a call, so a malformed one is named as such.
 */
export function checkDecisions(decisions: Record<string, unknown>): ApprovalDecisions {
  if (!isPlainObject(decisions)) {
    throw new ResumeError("decisions must be an object keyed by tool call id");
  }
  for (const [id, decision] of Object.entries(decisions)) {
    const where = `the decision for call ${id}`;
    if (!isPlainObject(decision)) {
      throw new ResumeError(
        `${where} must be { approve: true } or { approve: false } (or, for a client-side call, { result } or { error })`,
      );
    }
    if (isResultEntry(decision)) {
      checkResultEntry(id, decision);
      continue;
    }
    const unknown = Object.keys(decision).find((key) => !DECISION_KEYS.includes(key));
    if (unknown !== undefined) {
      const near = closest(unknown, DECISION_KEYS);
      throw new ResumeError(
        `${where} has the unknown key \`${unknown}\`${near ? ` (did you mean \`${near}\`?)` : ""}; a decision has ${DECISION_KEYS.map((k) => `\`${k}\``).join(", ")}`,
      );
    }
    if (typeof decision.approve !== "boolean") {
      throw new ResumeError(`${where} needs \`approve\`: true or false`);
    }
    if (decision.reason !== undefined && typeof decision.reason !== "string") {
      throw new ResumeError(`${where}: \`reason\` must be a string`);
    }
    if (decision.approve === false && decision.args !== undefined) {
      throw new ResumeError(`${where} refuses the call and edits its args; do one or the other`);
    }
    if (decision.approve === true && decision.reason !== undefined) {
      throw new ResumeError(`${where} approves the call; a \`reason\` goes with a refusal`);
    }
    if (decision.remember !== undefined && decision.remember !== "tool") {
      throw new ResumeError(
        `${where}: \`remember\` must be "tool" (the decision then holds for every later call of that tool in this run), got ${JSON.stringify(decision.remember) ?? String(decision.remember)}`,
      );
    }
    if (
      decision.digest !== undefined &&
      (typeof decision.digest !== "string" || !HEX64.test(decision.digest))
    ) {
      throw new ResumeError(`${where}: \`digest\` must be the 64-hex digest from the pending call`);
    }
  }
  return decisions as ApprovalDecisions;
}

/**
 * Whether an entry is meant as a client-side tool's result rather than a decision: it has
 * `result` or `error`. Read when checking shapes, and again when matching entries to calls.
 */
export const isResultEntry = (entry: object): entry is ExternalResult =>
  "result" in entry || "error" in entry;

/** A result entry's shape: `{ result, digest? }` or `{ error: string, digest? }`, never mixed with a decision. */
function checkResultEntry(id: string, entry: Record<string, unknown>): void {
  const where = `the entry for call ${id}`;
  const mixed = DECISION_KEYS.filter((key) => key !== "digest" && key in entry);
  if (mixed.length > 0) {
    throw new ResumeError(
      `${where} mixes a client-side result with a decision (\`${mixed[0]}\`); give { result } or { error } for a call that waits for its result, { approve } for one that waits for approval`,
    );
  }
  const unknown = Object.keys(entry).find((key) => !RESULT_KEYS.includes(key));
  if (unknown !== undefined) {
    const near = closest(unknown, RESULT_KEYS);
    throw new ResumeError(
      `${where} has the unknown key \`${unknown}\`${near ? ` (did you mean \`${near}\`?)` : ""}; a result entry has \`result\` or \`error\`, and \`digest\``,
    );
  }
  if ("result" in entry && "error" in entry) {
    throw new ResumeError(`${where} gives both \`result\` and \`error\`; give one`);
  }
  if ("error" in entry && (typeof entry.error !== "string" || entry.error === "")) {
    throw new ResumeError(
      `${where}: \`error\` must be a non-empty string (the message the model reads)`,
    );
  }
  if ("result" in entry && entry.result === undefined) {
    // A client that forgot to set its result must not reach the model as a successful null.
    throw new ResumeError(
      `${where} has \`result: undefined\`; give the tool's result (null if it has none), or { error }`,
    );
  }
  if (
    entry.digest !== undefined &&
    (typeof entry.digest !== "string" || !HEX64.test(entry.digest))
  ) {
    throw new ResumeError(`${where}: \`digest\` must be the 64-hex digest from the external call`);
  }
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

/** The one nested waiting call with this bare id; none, or two, is a `ResumeError`. */
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
