import { messageOf, ResumeError } from "../../errors.js";
import { formatIssues } from "../../tools/schema.js";
import { toJsonOutput } from "../../tools/tool-output.js";
import type { ToolContentPart } from "../../types/messages.js";
import type { RunState } from "../../types/run-state.js";
import type { CallRecord } from "../../types/step-record.js";
import { sameHex } from "../../util/canonical-json.js";
import { approvalDigest } from "../digest.js";
import { subAgentOf } from "../sub-runs.js";
import {
  type ApprovalDecision,
  type ApprovalDecisions,
  type ExternalResult,
  isResultEntry,
  type RoutedDecisions,
} from "./decisions.js";
import { type CallSettings, checkedArgs, editedArgs } from "./edited-args.js";

/**
 * What a checked state resumes with: the state (migrated, checked, private), and for each call
 * of its open step that has no result yet, in call order, what resuming does with it. Made by
 * `planResume`; it stands here, with `Resolution`, because a sub-run's resolution holds one.
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

/**
 * What resuming does with one call that has no result yet, from the decisions routed to it:
 * its sub-run continued, its client-side result, a human's decision, or a checkpoint's leftover.
 */
export async function resolve<Deps>(
  options: CallSettings<Deps>,
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

/**
 * A decision's digest, when it has one, must be the one sealed for the call (`key`) in this
 * state. Checked for the run's own calls and, against this state, for its sub-runs' calls.
 */
export async function checkDigest(
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
 * A client-side call's result as given: an error, or an output that fits the tool's `output`
 * schema and that JSON can carry. The tool must still be this loop's client-side tool.
 */
async function suppliedResult<Deps>(
  options: CallSettings<Deps>,
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

/**
 * A call that waits on its sub-agent's paused run: the sub-agent checks its state with the
 * decisions meant for it (nothing runs), and the call continues that run on resume.
 */
async function continuedSubRun<Deps>(
  options: CallSettings<Deps>,
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
