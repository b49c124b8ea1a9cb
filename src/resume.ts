import { approvalDigest, canonicalJson, sameHex } from "./digest.js";
import { ResumeError } from "./errors.js";
import type { Execution } from "./execute-calls.js";
import type { ToolCallPart } from "./gate.js";
import type { ResolvedOptions } from "./loop-options.js";
import {
  type CallSlot,
  closeOnError,
  type OpenStep,
  recordOf,
  type StepOutcome,
} from "./open-step.js";
import type { RunContext } from "./run-context.js";
import type { RunState } from "./run-state.js";
import { RUN_STATE_VERSION, signatureOf } from "./run-state.js";
import { settleStep } from "./settle-step.js";
import { decisionEvent, resultEvents } from "./step-events.js";
import type { CallRecord, StepRecord } from "./step-record.js";
import type { Tool } from "./tool.js";
import { errorResult } from "./tool-output.js";
import { validateArgs } from "./validate-args.js";

/** A human's decision on one pending call; `digest` binds it to the exact call it was made for. */
export type ApprovalDecision =
  | { approve: true; args?: unknown; digest?: string }
  | { approve: false; reason?: string; digest?: string };

/** Decisions by tool call id; every pending call needs one. */
export type ApprovalDecisions = Record<string, ApprovalDecision>;

/** What a checked state resumes with: the run's data and how to settle its open step. */
export interface ResumePlan<Deps> {
  state: RunState;
  /** Settles the open step: decisions applied, calls run, results written. */
  first(run: RunContext<Deps>): Promise<StepOutcome>;
}

/** One call of the open step and what resuming does with it. */
type Settlement<Deps> =
  | { kind: "approve"; slot: CallSlot<Deps>; args: unknown; edited: boolean }
  | { kind: "deny"; slot: CallSlot<Deps>; reason?: string }
  | { kind: "run"; slot: CallSlot<Deps>; args: unknown }
  | { kind: "unknown"; slot: CallSlot<Deps> };

/**
 * Checks everything about a state and its decisions before anything runs: readable version
 * (migrating older ones), signature, status, a decision for every pending call and none for
 * other ids, digests, tools present, args valid. Throws `ResumeError` saying what is wrong.
 */
export async function planResume<Deps>(
  options: ResolvedOptions<Deps>,
  given: unknown,
  decisions: ApprovalDecisions,
): Promise<ResumePlan<Deps>> {
  const state = migrate(options, await verified(options, given));
  if (state.status !== "needs_approval" && state.status !== "running") {
    throw new ResumeError(
      `nothing to resume: run ${state.runId} ended with status "${state.status}"`,
    );
  }
  const open = state.steps[state.steps.length - 1];
  if (!open) throw new ResumeError("the state has no open step to resume");
  if (typeof decisions !== "object" || decisions === null) {
    throw new ResumeError("decisions must be an object keyed by tool call id");
  }
  const step = openStepOf(options, open);
  const settlements: Settlement<Deps>[] = [];
  const pendingIds = new Set<string>();
  for (const slot of step.slots) {
    const settlement = await settle(options, state, slot, decisions, pendingIds);
    if (settlement) settlements.push(settlement);
  }
  for (const id of Object.keys(decisions)) {
    if (!pendingIds.has(id)) {
      throw new ResumeError(
        `no pending call has the id "${id}"; pending: ${[...pendingIds].join(", ") || "none"}`,
      );
    }
  }
  return {
    state,
    first: (run) => settleOpenStep(run, step, settlements, state.endedBy),
  };
}

async function verified<Deps>(options: ResolvedOptions<Deps>, given: unknown): Promise<RunState> {
  if (
    typeof given !== "object" ||
    given === null ||
    typeof (given as RunState).version !== "number"
  ) {
    throw new ResumeError("this is not a tollgate run state (no numeric `version`)");
  }
  const state = given as RunState;
  const key = options.signingKey;
  if (key === undefined) {
    if (state.signature !== undefined) {
      throw new ResumeError("the state is signed; give the loop the signingKey it was signed with");
    }
    return state;
  }
  if (typeof state.signature !== "string") {
    throw new ResumeError("the state is not signed, and this loop only resumes signed states");
  }
  if (!sameHex(state.signature, await signatureOf(state, key))) {
    throw new ResumeError(
      "the state's signature does not match: it was changed after it was written, or signed with another key",
    );
  }
  return state;
}

function migrate<Deps>(options: ResolvedOptions<Deps>, state: RunState): RunState {
  let current = state;
  while (current.version < RUN_STATE_VERSION) {
    const from = current.version;
    const migration = options.stateMigrations[from];
    if (!migration) {
      throw new ResumeError(
        `the state is version ${from} and this loop reads version ${RUN_STATE_VERSION}; register stateMigrations[${from}] to upgrade it`,
      );
    }
    current = migration(current) as RunState;
    if (typeof current?.version !== "number" || current.version <= from) {
      throw new ResumeError(`stateMigrations[${from}] must return a state of a later version`);
    }
  }
  if (current.version > RUN_STATE_VERSION) {
    throw new ResumeError(
      `the state is version ${current.version}, newer than this loop reads (${RUN_STATE_VERSION}); upgrade tollgate`,
    );
  }
  return current;
}

/** The open step rebuilt from its record, with this loop's tools. */
function openStepOf<Deps>(options: ResolvedOptions<Deps>, record: StepRecord): OpenStep<Deps> {
  const { tools } = options;
  const present = (names: string[]) => names.flatMap((name) => tools.find(name) ?? []);
  const parts = record.response.parts.filter(
    (part): part is ToolCallPart => part.type === "tool-call",
  );
  const view: OpenStep<Deps>["view"] = {
    shownNames: record.tools,
    callableTools: present(record.callable),
    callableNames: record.callable,
  };
  if (record.toolChoice !== undefined) view.toolChoice = record.toolChoice;
  return {
    index: record.index,
    started: performance.now() - record.ms,
    view,
    response: record.response,
    parts,
    slots: record.calls.map((call) => slotOf(tools.find(call.toolName), { ...call })),
  };
}

function slotOf<Deps>(tool: Tool<Deps> | undefined, record: CallRecord): CallSlot<Deps> {
  const slot: CallSlot<Deps> = tool ? { record, tool } : { record };
  if ("args" in record) {
    slot.call = {
      id: record.toolCallId,
      name: record.toolName,
      args: record.args,
      rawArgs: record.rawArgs,
    };
  }
  return slot;
}

/** What resuming does with one call; `undefined` for calls already settled. */
async function settle<Deps>(
  options: ResolvedOptions<Deps>,
  state: RunState,
  slot: CallSlot<Deps>,
  decisions: ApprovalDecisions,
  pendingIds: Set<string>,
): Promise<Settlement<Deps> | undefined> {
  const { record } = slot;
  if (record.result) return undefined;
  if (record.verdict === "needs-approval") {
    pendingIds.add(record.toolCallId);
    const decision = decisions[record.toolCallId];
    if (!decision || typeof decision.approve !== "boolean") {
      throw new ResumeError(
        `call ${record.toolCallId} (${record.toolName}) waits for a decision; give { approve: true } or { approve: false }`,
      );
    }
    await checkDigest(state, record, decision);
    if (!decision.approve) {
      return decision.reason === undefined
        ? { kind: "deny", slot }
        : { kind: "deny", slot, reason: decision.reason };
    }
    const edited = "args" in decision && decision.args !== undefined;
    const args = await argsFor(options, slot, edited ? decision.args : inputOf(record), edited);
    return { kind: "approve", slot, args, edited };
  }
  if (record.verdict !== "allow") {
    throw new ResumeError(
      `call ${record.toolCallId} has verdict "${record.verdict}" but no result; the state is damaged`,
    );
  }
  if (record.started && !slot.tool?.idempotent) {
    // The process stopped while this call ran: running it again could repeat its side effects.
    return { kind: "unknown", slot };
  }
  return { kind: "run", slot, args: await argsFor(options, slot, inputOf(record), false) };
}

const inputOf = (record: CallRecord) => ("input" in record ? record.input : record.args);

async function checkDigest(
  state: RunState,
  record: CallRecord,
  decision: ApprovalDecision,
): Promise<void> {
  if (decision.digest === undefined) return;
  const digest = await approvalDigest(state.runId, record.toolCallId, record.toolName, record.args);
  if (!sameHex(decision.digest, digest)) {
    throw new ResumeError(
      `the decision for call ${record.toolCallId} was made for other args or another call (digest mismatch); nothing ran`,
    );
  }
}

/** The args a call runs with: parsed again from its input, or from a human's edit. */
async function argsFor<Deps>(
  options: ResolvedOptions<Deps>,
  slot: CallSlot<Deps>,
  input: unknown,
  edited: boolean,
): Promise<unknown> {
  const { record, tool } = slot;
  if (!tool) {
    throw new ResumeError(
      `tool ${record.toolName} is not in this loop's toolset (it has: ${options.tools.names().join(", ") || "no tools"})`,
    );
  }
  const parsed = await validateArgs(tool, input);
  if (parsed.ok) return parsed.value;
  const whose = edited ? "the edited args" : "the stored args";
  throw new ResumeError(`${whose} of call ${record.toolCallId} are not valid: ${parsed.message}`);
}

/** The first step of a resumed run: applies the settlements, then runs and writes the step. */
async function settleOpenStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  settlements: Settlement<Deps>[],
  endedBy: RunState["endedBy"],
): Promise<StepOutcome> {
  run.openStep = () => recordOf(step);
  const decided: CallSlot<Deps>[] = [];
  const executions: Execution<Deps>[] = [];
  for (const settlement of settlements) {
    const { slot } = settlement;
    const { record } = slot;
    const index = step.slots.indexOf(slot);
    if (settlement.kind === "deny") {
      deny(run, record, settlement.reason);
      decided.push(slot);
      run.emit(decisionEvent(run, step.index, slot));
    } else if (settlement.kind === "unknown") {
      delete record.started;
      delete record.input;
      record.result = errorResult(
        record.toolCallId,
        record.toolName,
        "outcome unknown: the process stopped while this call ran",
      );
      decided.push(slot);
    } else {
      if (settlement.kind === "approve") approve(record, settlement.args, settlement.edited);
      slot.call = {
        id: record.toolCallId,
        name: record.toolName,
        args: settlement.args,
        rawArgs: record.rawArgs,
      };
      executions.push({ slot: index, call: slot.call, tool: slot.tool! });
      if (settlement.kind === "approve") run.emit(decisionEvent(run, step.index, slot));
    }
  }
  try {
    resultEvents(run, step, decided);
    return await settleStep(run, step, executions, endedBy);
  } catch (error) {
    closeOnError(run, step, error);
    throw error;
  }
}

function deny<Deps>(run: RunContext<Deps>, record: CallRecord, reason: string | undefined): void {
  record.verdict = "deny";
  record.by = "approval";
  delete record.input;
  if (reason !== undefined) record.reason = reason;
  const because = reason === undefined ? "" : `: ${reason}`;
  record.result = errorResult(
    record.toolCallId,
    record.toolName,
    `the call to ${record.toolName} was refused by a human${because}`,
  );
  run.denied.push({
    toolName: record.toolName,
    args: canonicalJson(record.args),
    ...(reason === undefined ? {} : { reason }),
  });
}

function approve(record: CallRecord, args: unknown, edited: boolean): void {
  record.verdict = "allow";
  record.by = "approval";
  if (edited) {
    record.editedFrom = record.args;
    record.args = JSON.parse(canonicalJson(args) ?? "null");
  }
}
