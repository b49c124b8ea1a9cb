import { messageOf, ResumeError } from "../errors.js";
import type { ArgsLimits } from "../tools/args.js";
import { argsFromValue, checkArgs } from "../tools/args.js";
import { formatIssues } from "../tools/schema.js";
import { toJsonOutput } from "../tools/tool-output.js";
import type { Toolset } from "../tools/toolset.js";
import type { ToolContentPart } from "../types/messages.js";
import type {
  CallRecord,
  ExternalCall,
  PendingApproval,
  StepRecord,
} from "../types/step-record.js";
import { closest, isPlainObject } from "../util/option-keys.js";
import { approvalDigest, canonicalJson, sameHex } from "./digest.js";
import type { RunState } from "./run-state.js";
import { isPaused, RUN_STATE_VERSION, signatureOf, stateDigestOf } from "./run-state.js";
import { type ListedCall, listedCalls } from "./seal-state.js";
import { stateProblem } from "./state-schema.js";
import type { StoreCalls } from "./store-calls.js";
import { fromVersion2, withResults } from "./stored-steps.js";
import { type RoutedDecisions, routeDecisions, subAgentOf, waitingCalls } from "./sub-runs.js";

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

/**
 * Where a state to resume came from: the loop's own store (trusted); the caller, by value; or
 * the caller, by value, for a run the loop's store has never held ("foreign": only a
 * signature or `trustState` vouches for it, never digests); or a parent's checked state that
 * holds it (a paused sub-run: trusted as its parent is).
 */
export type StateSource = "store" | "value" | "foreign" | "parent";

/** What of the loop's options a resume is checked against. */
export interface ResumeSettings<Deps> {
  tools: Toolset<Deps>;
  signingKey: string | Uint8Array | undefined;
  trustState: boolean;
  /** Whether a state by value may resume without a store to claim it (`allowReplay`). */
  allowReplay: boolean;
  store: StoreCalls | undefined;
  argsLimits: ArgsLimits;
  stateMigrations: Record<number, (state: any) => unknown>;
}

/**
 * What a checked state resumes with: the state (migrated, checked, private), and for each call
 * of its open step that has no result yet, in call order, what resuming does with it.
 */
export interface ResumePlan {
  state: RunState;
  resolutions: Resolution[];
}

/**
 * What resuming does with one call of the open step that has no result yet: run it approved
 * (with the human's edited args, or as it was), refuse it, run it (a checkpoint's call that
 * had not started), settle it as "outcome unknown" (it had started; it is not idempotent), or
 * continue the paused sub-run it waits on (`plan`, checked with the decisions meant for it).
 * `parsed` is the schema's output for the args that will run, computed once, here.
 */
export type Resolution =
  | {
      kind: "approve";
      toolCallId: string;
      args: unknown;
      parsed: unknown;
      edited: boolean;
      remember?: true;
    }
  | { kind: "refuse"; toolCallId: string; reason?: string; remember?: true }
  | { kind: "rerun"; toolCallId: string; parsed: unknown }
  | { kind: "unknown"; toolCallId: string }
  | { kind: "sub-run"; toolCallId: string; parsed: unknown; plan: ResumePlan }
  | { kind: "result"; toolCallId: string; output: unknown; content?: ToolContentPart[] }
  | { kind: "result-error"; toolCallId: string; error: string };

const DECISION_KEYS = ["approve", "args", "reason", "digest", "remember"];
const RESULT_KEYS = ["result", "error", "digest"];
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Checks everything about a state and its decisions before anything runs, on a private copy
 * of the state: trust (signature, digests, the store, or `trustState`), version (migrating
 * older ones), the whole state against its schema, status, a well-formed decision for every
 * pending call and none for other ids, digests, tools present, args valid. Throws
 * `ResumeError` saying what is wrong and how to fix it.
 */
export async function planResume<Deps>(
  options: ResumeSettings<Deps>,
  given: unknown,
  source: StateSource,
  decisions: unknown,
): Promise<ResumePlan> {
  const copy = privateCopy(given);
  const byDigest = await trustOf(options, copy, source, decisions);
  let digest: Promise<string> | undefined;
  const stateDigest = () => (digest ??= stateDigestOf(copy)); // of the state as given, before migration
  const state = migrate(options, structuredClone(copy));
  const problem = stateProblem(state);
  if (problem !== undefined) throw new ResumeError(`the state is damaged at ${problem}`);
  if (!isPaused(state.status) && state.status !== "running") {
    throw new ResumeError(
      `nothing to resume: run ${state.runId} ended with status "${state.status}"`,
    );
  }
  const unlinked = withResults(state);
  if (unlinked !== undefined) throw new ResumeError(`the state is damaged at ${unlinked}`);
  if (state.parent && source !== "parent") {
    throw new ResumeError(
      `this state is the paused sub-run of call ${state.parent.toolCallId} in run ${state.parent.runId}: it resumes only with its parent; resume the parent's state`,
    );
  }
  if (byDigest && !isPaused(state.status)) {
    throw new ResumeError(
      `a state passed by value resumes by digests only when it is paused (this one is "${state.status}"); resume it from the store by its runId`,
    );
  }
  const open = state.steps[state.steps.length - 1];
  if (!open) throw new ResumeError("the state has no open step to resume");
  checkOpenStep(state, open);
  checkCalls(state, open);
  checkListedCalls(state);
  const checked = checkDecisions(decisions as Record<string, unknown>);
  // Every key names a waiting call, here or in a sub-run; a sub-run's are checked against this state.
  const routed = routeDecisions(waitingCalls(state), checked);
  for (const { call, decision } of routed.forSubRuns) {
    await checkDigest(state, stateDigest, call.key, call.record, decision);
  }
  const resolutions: Resolution[] = [];
  for (const record of open.calls) {
    if (record.result) continue;
    if (record.verdict !== "needs-approval" && !record.subRun && !record.external && byDigest) {
      throw new ResumeError(
        `call ${record.toolCallId} has verdict "${record.verdict}" and no result, which a paused state never has; the state is damaged`,
      );
    }
    resolutions.push(await resolve(options, state, stateDigest, record, routed));
  }
  checkRemembered(state, open, resolutions);
  return { state, resolutions };
}

/**
 * Remembered decisions must be one per tool: the state's (else it is damaged), and the new
 * ones of this resume (two calls of one tool remembered one way each are refused).
 */
function checkRemembered(state: RunState, open: StepRecord, resolutions: Resolution[]): void {
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

/** The paused sub-runs a plan continues, at any depth: each state is claimed once, with its parent's. */
export function subRunStateIds(plan: ResumePlan): string[] {
  return plan.resolutions.flatMap((resolution) =>
    resolution.kind === "sub-run"
      ? [resolution.plan.state.stateId, ...subRunStateIds(resolution.plan)]
      : [],
  );
}

/** A copy of the given state that no one else holds: plain JSON data, read once. */
function privateCopy(given: unknown): RunState {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new ResumeError("this is not a tollgate run state (not an object)");
  }
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(given));
  } catch (error) {
    throw new ResumeError(`this is not a tollgate run state: it is not JSON (${messageOf(error)})`);
  }
  if (!Number.isInteger((copy as RunState).version)) {
    throw new ResumeError("this is not a tollgate run state (no whole-number `version`)");
  }
  return copy as RunState;
}

/**
 * Decides whether a state may run, before anything else is read. A loop with a `signingKey`
 * needs a valid signature, always. Otherwise a state from the store, or any state under
 * `trustState: true`, is trusted; a state by value must have every decision carry its
 * digest (returns true: digest mode), and digests need a store to claim the state, or
 * `allowReplay` (exactly once is the default).
 */
async function trustOf<Deps>(
  options: ResumeSettings<Deps>,
  state: RunState,
  source: StateSource,
  decisions: unknown,
): Promise<boolean> {
  const key = options.signingKey;
  const { signature } = state;
  if (key !== undefined) {
    if (signature === undefined) {
      throw new ResumeError(
        "the state is not signed, and this loop (it has a signingKey) only resumes signed states",
      );
    }
    if (typeof signature !== "string" || !HEX64.test(signature)) {
      throw new ResumeError("the state's signature is not a signature (64 hex digits)");
    }
    if (!sameHex(signature, await signatureOf(state, key))) {
      throw new ResumeError(
        "the state's signature does not match: it was changed after it was written, or signed with another key",
      );
    }
    return false;
  }
  if (signature !== undefined) {
    throw new ResumeError("the state is signed; give the loop the signingKey it was signed with");
  }
  if (source === "store" || source === "parent" || options.trustState) return false;
  if (source === "foreign") {
    throw new ResumeError(
      `this loop's store holds no state of run ${state.runId} (it was deleted, or never written here), so a state of it passed by value resumes only with a valid signature (AgentLoop signingKey), or with trustState: true if the state never left your own process or storage`,
    );
  }
  const all = isPlainObject(decisions) ? Object.values(decisions) : [];
  const withDigest = all.filter((d) => isPlainObject(d) && typeof d.digest === "string").length;
  if (all.length > 0 && withDigest === all.length) {
    if (options.store === undefined && !options.allowReplay) {
      throw new ResumeError(
        "this state was passed by value and its decisions carry digests, but this loop has no store to claim it: another loop (another process, or a new AgentLoop per request) could resume the same state and run its tools again. " +
          "Give the loop a store (memoryRunStore() in one process, a shared one across processes) and resume by runId, or set allowReplay: true on the loop if running a paused call twice is acceptable",
      );
    }
    return true;
  }
  const missing =
    all.length === 0
      ? "no decisions were given"
      : `${all.length - withDigest} of ${all.length} decisions carry no digest`;
  throw new ResumeError(
    `this state was passed by value without a signature, so it cannot be trusted as it is (${missing}). Sign states (AgentLoop signingKey), ` +
      "resume by runId from the loop's store, give each decision the digest of its pending call from your own record of `pending` ({ approve, digest }), " +
      "or, if the state never left your own process or storage, set trustState: true on the loop",
  );
}

/** The upgrades of tollgate's own older state versions, applied without being registered. */
const UPGRADES: Record<number, (state: unknown) => unknown> = { 2: fromVersion2 };

/**
 * Upgrades an older state to the version this build reads, one version at a time: with the
 * loop's `stateMigrations` for that version, else tollgate's own upgrade (from version 2 on).
 */
function migrate<Deps>(options: ResumeSettings<Deps>, state: RunState): RunState {
  let current = state;
  while (current.version < RUN_STATE_VERSION) {
    const from = current.version;
    const migration = options.stateMigrations[from] ?? UPGRADES[from];
    if (!migration) {
      throw new ResumeError(
        `the state is version ${from} and this loop reads version ${RUN_STATE_VERSION}; register stateMigrations[${from}] to upgrade it`,
      );
    }
    try {
      current = migration(current) as RunState;
    } catch (error) {
      throw new ResumeError(`stateMigrations[${from}] threw: ${messageOf(error)}`, {
        cause: error,
      });
    }
    if (!Number.isInteger(current?.version) || current.version <= from) {
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

/**
 * The open step must be what the transcript ends with: its calls are the tool calls of the
 * last assistant message, in order, each once.
 */
function checkOpenStep(state: RunState, open: StepRecord): void {
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

/**
 * The open step's calls must be ones a paused or running step can have: at least one call; a
 * paused step waits on at least one; a call waiting for approval has its args.
 */
function checkCalls(state: RunState, open: StepRecord): void {
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
function checkListedCalls(state: RunState): void {
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

const callIds = (parts: StepRecord["response"]["parts"]) =>
  parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));

/** The decisions, each checked for shape: `{ approve: true, args?, digest? }` or `{ approve: false, reason?, digest? }`. */
function checkDecisions(decisions: Record<string, unknown>): ApprovalDecisions {
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

/** Whether an entry is meant as a client-side tool's result rather than a decision. */
const isResultEntry = (entry: object): entry is ExternalResult =>
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

/**
 * A client-side call's result as given: an error, or an output that fits the tool's `output`
 * schema and that JSON can carry. The tool must still be this loop's client-side tool.
 */
async function suppliedResult<Deps>(
  options: ResumeSettings<Deps>,
  record: CallRecord,
  entry: ExternalResult,
): Promise<Resolution> {
  const { toolCallId, toolName } = record;
  const tool = options.tools.find(toolName);
  if (!tool?.external) {
    throw new ResumeError(
      tool
        ? `call ${toolCallId} waits for a client-side result, but tool ${toolName} of this loop runs here (it has an execute); nothing ran`
        : `tool ${toolName} is not in this loop's toolset (it has: ${options.tools.names().join(", ") || "no tools"})`,
    );
  }
  if ("error" in entry) return { kind: "result-error", toolCallId, error: entry.error };
  if (tool.output) {
    let checked: unknown;
    try {
      checked = await tool.output["~standard"].validate(entry.result);
    } catch (error) {
      throw new ResumeError(`the output schema of tool ${toolName} threw: ${messageOf(error)}`, {
        cause: error,
      });
    }
    const issues = (checked as { issues?: unknown } | null)?.issues;
    if (
      typeof checked !== "object" ||
      checked === null ||
      (issues !== undefined && !Array.isArray(issues))
    ) {
      throw new ResumeError(
        `the output schema of tool ${toolName} answered something that is not a validation result`,
      );
    }
    if (Array.isArray(issues)) {
      throw new ResumeError(
        `the result for call ${toolCallId} (${toolName}) does not fit the tool's output schema: ${formatIssues(issues) || "the schema rejected it"}; nothing ran`,
      );
    }
  }
  const json = toJsonOutput(entry.result);
  if (!json.ok) {
    throw new ResumeError(
      `the result for call ${toolCallId} (${toolName}) cannot be stored as JSON: ${json.problem}; nothing ran`,
    );
  }
  return json.content
    ? { kind: "result", toolCallId, output: json.output, content: json.content }
    : { kind: "result", toolCallId, output: json.output };
}

/** What resuming does with one call that has no result yet. */
async function resolve<Deps>(
  options: ResumeSettings<Deps>,
  state: RunState,
  stateDigest: () => Promise<string>,
  record: CallRecord,
  routed: RoutedDecisions<ApprovalDecision | ExternalResult>,
): Promise<Resolution> {
  const { toolCallId } = record;
  const tool = options.tools.find(record.toolName);
  if (record.subRun) {
    return continuedSubRun(options, state, record, routed.nested.get(toolCallId) ?? {});
  }
  if (record.external) {
    const entry = routed.own[toolCallId];
    if (!entry || !isResultEntry(entry)) {
      throw new ResumeError(
        `call ${toolCallId} (${record.toolName}) runs client-side and waits for its result; give { result } or { error: "..." }${entry ? ", not a decision" : ""}`,
      );
    }
    await checkDigest(state, stateDigest, toolCallId, record, entry);
    return suppliedResult(options, record, entry);
  }
  if (record.verdict === "needs-approval") {
    const decision = routed.own[record.toolCallId];
    if (!decision) {
      throw new ResumeError(
        `call ${record.toolCallId} (${record.toolName}) waits for a decision; give { approve: true } or { approve: false }`,
      );
    }
    if (isResultEntry(decision)) {
      throw new ResumeError(
        `call ${toolCallId} (${record.toolName}) waits for approval, not for a result; give { approve: true } or { approve: false } (an approved client-side call then waits for its result)`,
      );
    }
    await checkDigest(state, stateDigest, toolCallId, record, decision);
    const remember = decision.remember === "tool" ? { remember: true as const } : {};
    if (!decision.approve) {
      return decision.reason === undefined
        ? { kind: "refuse", toolCallId, ...remember }
        : { kind: "refuse", toolCallId, reason: decision.reason, ...remember };
    }
    const edited = decision.args !== undefined;
    const given = edited ? editedArgs(options, record, decision.args) : record.args;
    const { args, parsed } = await checkedArgs(options, record, given, edited);
    return { kind: "approve", toolCallId, args, parsed, edited, ...remember };
  }
  if (record.verdict !== "allow") {
    throw new ResumeError(
      `call ${record.toolCallId} has verdict "${record.verdict}" but no result; the state is damaged`,
    );
  }
  if (record.started && !tool?.idempotent) {
    // The process stopped while this call ran: running it again could repeat its side effects.
    return { kind: "unknown", toolCallId };
  }
  return {
    kind: "rerun",
    toolCallId,
    parsed: (await checkedArgs(options, record, record.args, false)).parsed,
  };
}

/** A decision's digest, when it has one, must be the one sealed for the call (`key`) in this state. */
async function checkDigest(
  state: RunState,
  stateDigest: () => Promise<string>,
  key: string,
  record: CallRecord,
  decision: { digest?: string | undefined },
): Promise<void> {
  if (decision.digest === undefined) return;
  const { runId } = state;
  const { toolName, args } = record;
  const digest = await approvalDigest(runId, key, toolName, args, await stateDigest());
  if (!sameHex(decision.digest, digest)) {
    throw new ResumeError(
      `the decision for call ${key} was made for other args, another call or another state (digest mismatch); nothing ran`,
    );
  }
}

/**
 * A call that waits on its sub-agent's paused run: the sub-agent checks its state with the
 * decisions meant for it (nothing runs), and the call continues that run on resume.
 */
async function continuedSubRun<Deps>(
  options: ResumeSettings<Deps>,
  state: RunState,
  record: CallRecord,
  decisions: ApprovalDecisions,
): Promise<Resolution> {
  const { toolCallId, toolName } = record;
  const tool = options.tools.find(toolName);
  const agent = subAgentOf(tool);
  if (!agent) {
    throw new ResumeError(
      tool
        ? `call ${toolCallId} waits on a paused sub-run, but tool ${toolName} of this loop is not a sub-agent (build it with loop.asTool())`
        : `tool ${toolName} is not in this loop's toolset (it has: ${options.tools.names().join(", ") || "no tools"})`,
    );
  }
  const nested = record.subRun as unknown as RunState;
  if (
    record.verdict !== "allow" ||
    record.started ||
    nested.status !== "needs_approval" ||
    nested.parent?.runId !== state.runId ||
    nested.parent.toolCallId !== toolCallId
  ) {
    throw new ResumeError(
      `the state is damaged: call ${toolCallId} waits on a sub-run that is not its own paused run; tollgate never writes such a state`,
    );
  }
  let plan: ResumePlan;
  try {
    plan = (await agent.plan(nested, decisions)) as ResumePlan;
  } catch (error) {
    if (!(error instanceof ResumeError)) throw error;
    throw new ResumeError(`in the sub-run of call ${toolCallId} (${toolName}): ${error.message}`, {
      cause: error,
    });
  }
  const { parsed } = await checkedArgs(options, record, record.args, false);
  return { kind: "sub-run", toolCallId, parsed, plan };
}

/** A human's edit as args in the model's form: JSON data within the loop's limits. */
function editedArgs<Deps>(
  options: ResumeSettings<Deps>,
  record: CallRecord,
  given: unknown,
): unknown {
  const read = argsFromValue(given, options.argsLimits);
  if (read.ok) return read.args;
  throw new ResumeError(
    `the edited args of call ${record.toolCallId} are not valid: ${read.message}`,
  );
}

/**
 * A call's final args checked: completed with the schema's defaults (a human's edit that leaves
 * a defaulted field out gets it, as the model's args did) and the schema's output for them,
 * what `execute` will get, computed once, here.
 */
async function checkedArgs<Deps>(
  options: ResumeSettings<Deps>,
  record: CallRecord,
  args: unknown,
  edited: boolean,
): Promise<{ args: unknown; parsed: unknown }> {
  const tool = options.tools.find(record.toolName);
  if (!tool) {
    throw new ResumeError(
      `tool ${record.toolName} is not in this loop's toolset (it has: ${options.tools.names().join(", ") || "no tools"})`,
    );
  }
  if (args === undefined) {
    throw new ResumeError(`call ${record.toolCallId} has no args; the state is damaged`);
  }
  const checked = await checkArgs(tool, args);
  if (checked.ok) return checked;
  const whose = edited ? "the edited args" : "the stored args";
  throw new ResumeError(`${whose} of call ${record.toolCallId} are not valid: ${checked.message}`);
}
