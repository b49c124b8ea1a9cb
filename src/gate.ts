import { HookError, messageOf } from "./errors.js";
import type { PreToolCallHook, PreToolCallVerdict } from "./hooks.js";
import { andThen, isPromise, type MaybePromise } from "./maybe-promise.js";
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
  callable: readonly string[];
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
 * refusal of the same call → decision. Synchronous while every hook, schema and policy
 * answers synchronously. Throws (or rejects with) `HookError` when a hook throws or rewrites
 * args into something the schema rejects.
 */
export function gate<Deps>(input: GateInput<Deps>): MaybePromise<GateOutcome> {
  const { part, tool } = input;
  if (!tool) {
    const names = input.callable;
    return {
      kind: "unavailable",
      by: "default",
      message: `tool ${part.name} is not available in this step; the tools you can call are: ${names.join(", ") || "none"}`,
    };
  }
  return andThen(parseArgs(tool, part.args), (parsed): MaybePromise<GateOutcome> => {
    if (!parsed.ok) return { kind: "invalid", by: "schema", message: parsed.message };
    const call: ToolCall = { id: part.id, name: part.name, args: parsed.value, rawArgs: part.args };
    return dispatch(input, tool, { call, argsInput: parsed.input }, 0);
  });
}

/** The chain so far: the call with its args as the hooks left them, and the last `confirm`. */
interface Chain {
  call: ToolCall;
  argsInput: unknown;
  confirm?: { value: boolean; by: DecidedBy };
}

/** Runs hook `index` and the ones after it, then the decision (one function, koa-compose style). */
function dispatch<Deps>(
  input: GateInput<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
): MaybePromise<GateOutcome> {
  for (; index < input.hooks.length; index++) {
    const verdict = runHook(input, index, chain.call);
    const next = index + 1;
    if (isPromise(verdict)) {
      return Promise.resolve(verdict).then((settled) =>
        andThen(
          applyVerdict(input, tool, chain, index, checkVerdict(settled, index, chain.call)),
          (ended) => ended ?? dispatch(input, tool, chain, next),
        ),
      );
    }
    const applied = applyVerdict(input, tool, chain, index, verdict);
    if (isPromise(applied)) {
      return applied.then((ended) => ended ?? dispatch(input, tool, chain, next));
    }
    if (applied) return applied;
  }
  const refused = input.refused(chain.call);
  if (refused) {
    const because = refused.reason === undefined ? "" : ` (${refused.reason})`;
    return {
      kind: "deny",
      by: "approval",
      call: chain.call,
      input: chain.argsInput,
      reason: `already refused in this run${because}; do not ask for it again`,
    };
  }
  return decide(input, tool, chain);
}

/** Calls a hook; a throw becomes `HookError`, and so does a rejection. */
function runHook<Deps>(
  input: GateInput<Deps>,
  index: number,
  call: ToolCall,
): MaybePromise<PreToolCallVerdict | undefined> {
  let verdict: unknown;
  try {
    verdict = input.hooks[index]!({
      name: call.name,
      args: call.args,
      toolCallId: call.id,
      step: input.step,
      provider: input.provider.name,
      model: input.provider.model,
      deps: input.deps,
    });
  } catch (error) {
    throw hookThrew(index, call, error);
  }
  if (isPromise(verdict)) {
    return Promise.resolve(verdict).then(
      (settled) => settled as PreToolCallVerdict | undefined,
      (error: unknown) => {
        throw hookThrew(index, call, error);
      },
    );
  }
  return checkVerdict(verdict, index, call);
}

function hookThrew(index: number, call: ToolCall, error: unknown): HookError {
  return new HookError(
    `pre-call hook ${index} threw on tool ${call.name}: ${messageOf(error)}`,
    index,
    call.name,
    call.id,
    { cause: error },
  );
}

function checkVerdict(
  verdict: unknown,
  index: number,
  call: ToolCall,
): PreToolCallVerdict | undefined {
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

/**
 * Applies one hook's verdict: an outcome when it ends the chain (stop > block > result),
 * `undefined` when the chain goes on (after taking its `args` and `confirm`).
 */
function applyVerdict<Deps>(
  input: GateInput<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
  verdict: PreToolCallVerdict | undefined,
): MaybePromise<GateOutcome | undefined> {
  if (!verdict) return undefined;
  const by: DecidedBy = `hook:${index}`;
  const judged = { by, call: chain.call, input: chain.argsInput };
  if (verdict.stop) return withReason({ kind: "stop", ...judged }, verdict.stopReason);
  if (verdict.block) {
    const message =
      typeof verdict.block === "string"
        ? verdict.block
        : `the call to ${chain.call.name} was blocked`;
    return { kind: "block", ...judged, message };
  }
  if (verdict.result !== undefined) return { kind: "result", ...judged, output: verdict.result };
  if (verdict.confirm !== undefined) chain.confirm = { value: verdict.confirm, by };
  if (verdict.args === undefined) return undefined;
  const rewritten = verdict.args;
  return andThen(validateArgs(tool, rewritten), (validated) => {
    if (!validated.ok) {
      throw new HookError(
        `pre-call hook ${index} rewrote the args of ${tool.name} into args its schema rejects: ${validated.message}`,
        index,
        tool.name,
        input.part.id,
      );
    }
    chain.call.args = validated.value;
    chain.argsInput = rewritten;
    return undefined;
  });
}

/** The decision: policy DENY, else the last hook `confirm`, else the policy, else the tool, else ALLOW. */
function decide<Deps>(
  input: GateInput<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
): MaybePromise<GateOutcome> {
  const { decideToolCall } = input.policy;
  const { call, argsInput, confirm } = chain;
  if (!decideToolCall && confirm) return hookConfirm(confirm, call, argsInput);
  const needsApproval =
    typeof tool.needsApproval === "function"
      ? tool.needsApproval(call.args, input.context(tool))
      : tool.needsApproval;
  return andThen(needsApproval, (needed) => {
    if (!decideToolCall) return defaultDecision(needed, call, argsInput);
    const answer = decideToolCall.call(input.policy, {
      call,
      tool,
      needsApproval: Boolean(needed),
      step: input.step,
      deps: input.deps,
    });
    return andThen(answer, (decision) => {
      const normalized = normalizeDecision(decision);
      const judged = { call, input: argsInput };
      if (normalized?.decision === "DENY") {
        return withReason({ kind: "deny", by: "policy", ...judged }, normalized.reason);
      }
      if (confirm) return hookConfirm(confirm, call, argsInput);
      if (normalized?.decision === "ALLOW") {
        return withReason({ kind: "allow", by: "policy", ...judged }, normalized.reason);
      }
      if (normalized) {
        return withReason({ kind: "needs-approval", by: "policy", ...judged }, normalized.reason);
      }
      return defaultDecision(needed, call, argsInput);
    });
  });
}

function defaultDecision(needsApproval: boolean, call: ToolCall, argsInput: unknown): GateOutcome {
  return needsApproval
    ? { kind: "needs-approval", by: "tool", call, input: argsInput }
    : { kind: "allow", by: "default", call, input: argsInput };
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
