import { HookError, messageOf } from "./errors.js";
import type { PreToolCallHook, PreToolCallVerdict } from "./hooks.js";
import type { AssistantPart, ToolCall } from "./messages.js";
import type { Decision, LoopPolicy } from "./policy.js";
import type { DeniedCall } from "./run-state.js";
import type { DecidedBy } from "./step-record.js";
import type { Tool, ToolContext } from "./tool.js";
import { parseArgs, validateArgs } from "./validate-args.js";

/** A tool-call part as the model sent it. */
export type ToolCallPart = Extract<AssistantPart, { type: "tool-call" }>;

/** What the gate decided for one call, and who decided it. */
export type GateOutcome =
  | { kind: "unavailable"; by: "default"; message: string }
  | { kind: "invalid"; by: "schema"; message: string }
  | ({ kind: "stop"; reason?: string } & Judged)
  | ({ kind: "block"; message: string } & Judged)
  | ({ kind: "result"; output: unknown } & Judged)
  | ({ kind: "deny"; reason?: string } & Judged)
  | ({ kind: "needs-approval"; reason?: string } & Judged)
  | ({ kind: "allow"; reason?: string } & Judged);

/** A call whose args parsed: who decided, the call, and its args as schema input. */
interface Judged {
  by: DecidedBy;
  call: ToolCall;
  input: unknown;
}

/** Everything the gate needs to judge one call. */
export interface GateInput<Deps> {
  part: ToolCallPart;
  /** The tool, when it is callable in this step. */
  tool: Tool<Deps> | undefined;
  /** Names of the tools callable in this step, for the "not available" message. */
  callable: () => string[];
  step: number;
  hooks: readonly PreToolCallHook<Deps>[];
  policy: LoopPolicy<Deps>;
  deps: Deps;
  provider: { name: string; model: string };
  /** The context the tool would run with, for `needsApproval`. */
  context: (tool: Tool<Deps>) => ToolContext<Deps>;
  /** The earlier refusal of this exact call, when refusals are remembered. */
  refused: (call: ToolCall) => DeniedCall | undefined;
}

/**
 * Judges one call: callable? → args parse and validate → hook chain → an earlier human
 * refusal of the same call → decision. Throws
 * `HookError` when a hook throws or rewrites args into something the schema rejects.
 */
export async function gate<Deps>(input: GateInput<Deps>): Promise<GateOutcome> {
  const { part, tool } = input;
  if (!tool) {
    const names = input.callable();
    return {
      kind: "unavailable",
      by: "default",
      message: `tool ${part.name} is not available in this step; the tools you can call are: ${names.join(", ") || "none"}`,
    };
  }
  const parsed = await parseArgs(tool, part.args);
  if (!parsed.ok) return { kind: "invalid", by: "schema", message: parsed.message };

  const call: ToolCall = { id: part.id, name: part.name, args: parsed.value, rawArgs: part.args };
  let argsInput = parsed.input;
  let confirm: { value: boolean; by: DecidedBy } | undefined;
  for (let index = 0; index < input.hooks.length; index++) {
    const by: DecidedBy = `hook:${index}`;
    const verdict = await runHook(input, index, call);
    if (!verdict) continue;
    const judged = { by, call, input: argsInput };
    if (verdict.stop) return withReason({ kind: "stop", ...judged }, verdict.stopReason);
    if (verdict.block) {
      const message =
        typeof verdict.block === "string" ? verdict.block : `the call to ${call.name} was blocked`;
      return { kind: "block", ...judged, message };
    }
    if (verdict.result !== undefined) return { kind: "result", ...judged, output: verdict.result };
    if (verdict.args !== undefined) {
      call.args = await rewriteArgs(input, tool, index, verdict.args);
      argsInput = verdict.args;
    }
    if (verdict.confirm !== undefined) confirm = { value: verdict.confirm, by };
  }
  const refused = input.refused(call);
  if (refused) {
    const because = refused.reason === undefined ? "" : ` (${refused.reason})`;
    return {
      kind: "deny",
      by: "approval",
      call,
      input: argsInput,
      reason: `already refused in this run${because}; do not ask for it again`,
    };
  }
  return decide(input, tool, call, argsInput, confirm);
}

async function runHook<Deps>(
  input: GateInput<Deps>,
  index: number,
  call: ToolCall,
): Promise<PreToolCallVerdict | undefined> {
  let verdict: unknown;
  try {
    verdict = await input.hooks[index]!({
      name: call.name,
      args: call.args,
      toolCallId: call.id,
      step: input.step,
      provider: input.provider.name,
      model: input.provider.model,
      deps: input.deps,
    });
  } catch (error) {
    throw new HookError(
      `pre-call hook ${index} threw on tool ${call.name}: ${messageOf(error)}`,
      index,
      call.name,
      call.id,
      { cause: error },
    );
  }
  if (verdict === undefined || verdict === null) return undefined;
  if (typeof verdict !== "object") {
    throw new HookError(
      `pre-call hook ${index} returned ${typeof verdict} on tool ${call.name}; return a verdict object or nothing`,
      index,
      call.name,
      call.id,
    );
  }
  return verdict as PreToolCallVerdict;
}

async function rewriteArgs<Deps>(
  input: GateInput<Deps>,
  tool: Tool<Deps>,
  index: number,
  args: unknown,
): Promise<unknown> {
  const validated = await validateArgs(tool, args);
  if (validated.ok) return validated.value;
  throw new HookError(
    `pre-call hook ${index} rewrote the args of ${tool.name} into args its schema rejects: ${validated.message}`,
    index,
    tool.name,
    input.part.id,
  );
}

async function decide<Deps>(
  input: GateInput<Deps>,
  tool: Tool<Deps>,
  call: ToolCall,
  argsInput: unknown,
  confirm: { value: boolean; by: DecidedBy } | undefined,
): Promise<GateOutcome> {
  const { decideToolCall } = input.policy;
  if (!decideToolCall && confirm) return hookConfirm(confirm, call, argsInput);
  const needsApproval =
    typeof tool.needsApproval === "function"
      ? await tool.needsApproval(call.args, input.context(tool))
      : tool.needsApproval;
  const answer = decideToolCall
    ? normalizeDecision(
        await decideToolCall.call(input.policy, {
          call,
          tool,
          needsApproval: Boolean(needsApproval),
          step: input.step,
          deps: input.deps,
        }),
      )
    : undefined;
  const judged = { call, input: argsInput };
  if (answer?.decision === "DENY") {
    return withReason({ kind: "deny", by: "policy", ...judged }, answer.reason);
  }
  if (confirm) return hookConfirm(confirm, call, argsInput);
  if (answer?.decision === "ALLOW") {
    return withReason({ kind: "allow", by: "policy", ...judged }, answer.reason);
  }
  if (answer) return withReason({ kind: "needs-approval", by: "policy", ...judged }, answer.reason);
  if (needsApproval) return { kind: "needs-approval", by: "tool", ...judged };
  return { kind: "allow", by: "default", ...judged };
}

function hookConfirm(
  confirm: { value: boolean; by: DecidedBy },
  call: ToolCall,
  argsInput: unknown,
): GateOutcome {
  const kind = confirm.value ? "needs-approval" : "allow";
  return { kind, by: confirm.by, call, input: argsInput };
}

const DECISIONS = new Set(["ALLOW", "DENY", "NEEDS_APPROVAL"]);

function normalizeDecision(
  decision: Decision,
): { decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL"; reason?: string } | undefined {
  if (decision === undefined || decision === null) return undefined;
  const normalized = typeof decision === "string" ? { decision } : decision;
  if (!DECISIONS.has(normalized.decision)) {
    throw new TypeError(
      `decideToolCall returned ${JSON.stringify(decision)}; return "ALLOW", "DENY", "NEEDS_APPROVAL", { decision, reason } or undefined`,
    );
  }
  return normalized;
}

function withReason<T extends GateOutcome>(outcome: T, reason: string | undefined): T {
  if (reason !== undefined) (outcome as { reason?: string }).reason = reason;
  return outcome;
}
