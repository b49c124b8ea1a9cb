import { ResumeError } from "../../errors.js";
import type { RunState } from "../../types/run-state.js";
import type { ExternalCall, PendingApproval, StepRecord } from "../../types/step-record.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { type ListedCall, listedCalls } from "../seal-state.js";
import type { Resolution } from "./resolutions.js";

/**
 * The open step must be what the transcript ends with: its calls are the tool calls of the
 * last assistant message, in order, each once.
 */
export function checkOpenStep(state: RunState, open: StepRecord): void {
  const last = state.messages[state.messages.length - 1];
  const asked = last?.role === "assistant" ? callIds(last.parts) : [];
  const fromResponse = callIds(open.response.parts);
  const recorded = open.calls.map((call) => call.toolCallId);
  const same = (a: string[], b: string[]) =>
    a.length === b.length && a.every((id, i) => id === b[i]);
  if (
    !same(asked, recorded) ||
    !same(fromResponse, recorded) ||
    new Set(recorded).size !== recorded.length
  ) {
    throw new ResumeError(
      "the state is damaged: its open step's calls are not the tool calls its transcript ends with",
    );
  }
}

const callIds = (parts: StepRecord["response"]["parts"]) =>
  parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));

/**
 * The open step's calls must be ones a paused or running step can have: at least one call; a
 * paused step waits on at least one; a call waiting for approval has its args.
 */
export function checkCalls(state: RunState, open: StepRecord): void {
  const damaged = (what: string) =>
    new ResumeError(`the state is damaged: ${what}; tollgate never writes such a state`);
  if (open.calls.length === 0) throw damaged("its open step has no tool calls");
  const waiting = open.calls.filter((call) => call.verdict === "needs-approval" && !call.result);
  const onSubRuns = open.calls.some((call) => call.subRun && !call.result);
  if (state.status === "needs_approval" && waiting.length === 0 && !onSubRuns) {
    throw damaged("it waits for approval, but no call of its open step does");
  }
  const external = open.calls.filter((call) => call.external && !call.result);
  if (state.status === "needs_results" && external.length === 0) {
    throw damaged("it waits for client-side tools' results, but no call of its open step does");
  }
  const odd = external.find(
    (call) => call.verdict !== "allow" || call.started || call.subRun || call.args === undefined,
  );
  if (odd) throw damaged(`call ${odd.toolCallId} waits for a result but was never allowed to`);
  const argless = waiting.find((call) => call.args === undefined);
  if (argless) throw damaged(`call ${argless.toolCallId} waits for approval without its args`);
}

/**
 * A state's `pending` and `external` must be what its steps derive, as `sealState` wrote them
 * (`listedCalls`): an inbox renders `pending`, so a list edited after the state was written
 * would show a human something other than what runs. Each entry's `digest` is left to the
 * decision that carries it (`checkDigest`): a wrong one approves nothing, and any other edit
 * of the state changes them all, which that check names better.
 */
export function checkListedCalls(state: RunState): void {
  const listed = listedCalls(state);
  for (const list of ["pending", "external"] as const) {
    const derived = listed
      .filter(({ external }) => external === (list === "external"))
      .map(({ call }) => call);
    const problem = listProblem(state[list] ?? [], derived);
    if (problem === undefined) continue;
    throw new ResumeError(
      `the state's \`${list}\` is not what its steps hold (${problem}): it was changed after the state was written, so it shows something other than what would run; nothing ran. Resume the state as it was written, or by runId from the store`,
    );
  }
}

/** What a waiting list shows of a call, compared on resume: all but its `digest`. */
const SHOWN = ["toolCallId", "toolName", "args", "reason", "subRun"] as const;

/** The first difference between a listed and a derived waiting list, or `undefined`. */
function listProblem(
  given: readonly (PendingApproval | ExternalCall)[],
  derived: readonly ListedCall[],
): string | undefined {
  if (given.length !== derived.length) {
    return `it lists ${given.length} calls, its steps ${derived.length}`;
  }
  for (const [i, held] of derived.entries()) {
    const listed = given[i] as ListedCall;
    const field = SHOWN.find((key) => canonicalJson(listed[key]) !== canonicalJson(held[key]));
    if (field) return `entry ${i} (call ${held.toolCallId}) differs in \`${field}\``;
  }
  return undefined;
}

/**
 * Remembered decisions must be one per tool: the state's (else it is damaged), and the new
 * ones of this resume (two calls of one tool remembered one way each are refused). Checked
 * once the open step's calls are resolved, since the new ones are theirs.
 */
export function checkRemembered(
  state: RunState,
  open: StepRecord,
  resolutions: Resolution[],
): void {
  const names = (state.remembered ?? []).map((decision) => decision.toolName);
  if (new Set(names).size !== names.length) {
    throw new ResumeError(
      "the state is damaged: it remembers two decisions for one tool; tollgate never writes such a state",
    );
  }
  const chosen = new Map<string, string>();
  for (const resolution of resolutions) {
    if ((resolution.kind !== "approve" && resolution.kind !== "refuse") || !resolution.remember) {
      continue;
    }
    const { toolName } = open.calls.find((call) => call.toolCallId === resolution.toolCallId)!;
    const earlier = chosen.get(toolName);
    if (earlier !== undefined && earlier !== resolution.kind) {
      throw new ResumeError(
        `the decisions remember both an approval and a refusal for tool ${toolName} (remember: "tool"); remember one of them, or decide the calls one by one`,
      );
    }
    chosen.set(toolName, resolution.kind);
  }
}
