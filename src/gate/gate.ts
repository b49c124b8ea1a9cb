import { HookError, messageOf } from "../errors.js";
import type { DeniedCall, RememberedDecision } from "../state/run-state.js";
import type { ArgsLimits } from "../tools/args.js";
import { argsFromValue, checkArgs, parseArgs, withoutAdvice } from "../tools/args.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { PreToolCallHook, PreToolCallVerdict } from "../types/hooks.js";
import type { ToolCall, ToolCallPart } from "../types/messages.js";
import type { DecidedBy } from "../types/step-record.js";
import type { RepairToolCall } from "../types/tool-feedback.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { isPlainObject } from "../util/option-keys.js";
import { callPolicy, readBoolean, shortForm } from "../util/policy-call.js";
import { askHook } from "./ask-hook.js";
import type { LoopPolicy } from "./policy.js";
import { readPreCallVerdict } from "./verdict.js";

/** What the gate decided for one call, and who decided it. */
export type GateOutcome =
  | { kind: "unavailable"; by: "default"; message: string }
  | { kind: "invalid"; by: "schema"; message: string }
  | ({ kind: "stop"; reason?: string } & Judged)
  | ({ kind: "block"; message: string } & Judged)
  | ({ kind: "result"; output: unknown } & Judged)
  | ({ kind: "deny"; reason?: string } & Judged)
  | ({ kind: "needs-approval"; reason?: string } & Judged)
  | ({ kind: "allow"; reason?: string; parsed: unknown } & Judged);

/**
 * A call whose args were read and validated: who decided, and the call (frozen) with its
 * final args in the model's form. An allowed call also carries `parsed`, the schema's output
 * for those args: what `execute` gets.
 */
interface Judged {
  by: DecidedBy;
  call: ToolCall;
  /** The model's args failed parsing or validation; `call.args` are `repairToolCall`'s fix. */
  repaired?: true;
}

/** One call to judge, and everything the gate needs to judge it. */
export interface GateRequest<Deps> {
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
  argsLimits: ArgsLimits;
  /** The context the tool would run with, for `needsApproval`. */
  context: (tool: Tool<Deps>) => ToolContext<Deps>;
  /** The earlier refusal of this exact call, when refusals are remembered. */
  refused: (call: ToolCall) => DeniedCall | undefined;
  /** The decision a human asked to remember for every later call of this tool in the run. */
  remembered?: ((toolName: string) => RememberedDecision | undefined) | undefined;
  /** The loop's `repairToolCall`, for calls whose args failed parsing or validation. */
  repair?: RepairToolCall<Deps> | undefined;
}

/**
 * Judges one call: callable? → args read and validated → hook chain → an earlier human
 * refusal of the same call → decision. Synchronous while every hook, schema and policy
 * answers synchronously. Throws (or rejects with) `HookError` when a hook throws, answers
 * with something that is not a verdict, or rewrites args into something the schema rejects,
 * and `PolicyError` when the policy or `needsApproval` does the like.
 */
export function gate<Deps>(request: GateRequest<Deps>): MaybePromise<GateOutcome> {
  const { part, tool } = request;
  if (!tool) return unavailable(part.name, request.callable);
  return andThen(
    parseArgs(tool, part.args, request.argsLimits),
    (read): MaybePromise<GateOutcome> => {
      if (read.ok) return dispatch(request, tool, { args: read.args, parsed: read.parsed }, 0);
      const invalid: GateOutcome = { kind: "invalid", by: "schema", message: read.message };
      return request.repair ? repaired(request, tool, invalid) : invalid;
    },
  );
}

/**
 * Asks `repairToolCall` to fix a call's args: fixed args are read like a hook's rewrite,
 * validated again and then go through the hooks and the decision like the model's own; no fix
 * (or a fix the schema rejects) leaves the call invalid. A throw, or an answer JSON cannot
 * carry, is `PolicyError`.
 */
function repaired<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  invalid: GateOutcome & { kind: "invalid" },
): MaybePromise<GateOutcome> {
  const { part, step, argsLimits } = request;
  const repair = request.repair!;
  const info = {
    call: Object.freeze({ id: part.id, name: part.name, rawArgs: part.args }),
    error: withoutAdvice(invalid.message),
    tool,
    step,
  };
  const fixed = callPolicy(
    "repairToolCall",
    tool.name,
    () => repair(Object.freeze(info)),
    (answer) => readRepair(answer, argsLimits),
  );
  return andThen(fixed, (args) => {
    if (args === undefined) return invalid;
    return andThen(checkArgs(tool, args), (checked) => {
      if (!checked.ok) return invalid;
      const chain = { args: checked.args, parsed: checked.parsed };
      return andThen(dispatch(request, tool, chain, 0), (outcome) => {
        if ("call" in outcome) outcome.repaired = true;
        return outcome;
      });
    });
  });
}

/** Reads `repairToolCall`'s answer: `undefined` (no fix), or args JSON can carry (model form). */
function readRepair(
  answer: unknown,
  limits: ArgsLimits,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (answer === undefined) return { ok: true, value: undefined };
  if (typeof answer === "string" || answer === null) {
    // A tool's args are an object: a string is the JSON text not parsed yet, a mistake.
    return {
      ok: false,
      problem: `returned ${answer === null ? "null" : "a string"}; return the fixed args as data (JSON.parse the text), or undefined for no fix`,
    };
  }
  const read = argsFromValue(answer, limits);
  if (read.ok) return { ok: true, value: read.args };
  return {
    ok: false,
    problem: `returned args that are not JSON args (${read.message}); return the fixed args as JSON data, or undefined for no fix`,
  };
}

function unavailable(name: string, callable: readonly string[]): GateOutcome {
  const tools = `the tools you can call are: ${callable.join(", ") || "none"}`;
  const message =
    name === ""
      ? `the call came without a tool name; ${tools}`
      : `tool ${name} is not available in this step; ${tools}`;
  return { kind: "unavailable", by: "default", message };
}

/** The chain so far: the args as the hooks left them (model form), their parsed form, the last `confirm`. */
interface Chain {
  args: unknown;
  parsed: unknown;
  confirm?: { value: boolean; by: DecidedBy };
}

/** Runs hook `index` and the ones after it, then the decision (one function, koa-compose style). */
function dispatch<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
): MaybePromise<GateOutcome> {
  for (; index < request.hooks.length; index++) {
    const verdict = runHook(request, index, chain.args);
    const next = index + 1;
    const applied = andThen(verdict, (answer) => applyVerdict(request, tool, chain, index, answer));
    if (isPromise(applied)) {
      return andThen(applied, (ended) => ended ?? dispatch(request, tool, chain, next));
    }
    if (applied) return applied;
  }
  const call = callOf(request.part, chain.args);
  const refused = request.refused(call);
  if (refused) {
    const because = refused.reason === undefined ? "" : ` (${refused.reason})`;
    return {
      kind: "deny",
      by: "approval",
      call,
      reason: `already refused in this run${because}; do not ask for it again`,
    };
  }
  const remembered = request.remembered?.(call.name);
  if (remembered && !remembered.approve) {
    const because = remembered.reason === undefined ? "" : ` (${remembered.reason})`;
    return {
      kind: "deny",
      by: "approval",
      call,
      reason: `refused for the rest of this run by a remembered decision${because}; do not call ${call.name} again`,
    };
  }
  const decision = decide(request, tool, chain, call);
  if (!remembered) return decision;
  // A remembered approval answers only the question a human would have been asked: it turns
  // NEEDS_APPROVAL into ALLOW, never a block or a DENY.
  return andThen(decision, (outcome) =>
    outcome.kind === "needs-approval"
      ? {
          kind: "allow",
          by: "approval",
          call: outcome.call,
          parsed: chain.parsed,
          reason: "approved for the rest of this run by a remembered decision",
        }
      : outcome,
  );
}

/** The call as everything outside `execute` sees it: frozen, args in the model's form. */
function callOf(part: ToolCallPart, args: unknown): ToolCall {
  return Object.freeze({ id: part.id, name: part.name, args, rawArgs: part.args });
}

/** "pre-call hook 1 (preToolCall[1])": which hook, counted as the loop's array counts. */
export const hookName = (index: number) => `pre-call hook ${index} (preToolCall[${index}])`;

/** Calls a hook and reads its verdict; a throw, a rejection or a malformed verdict becomes `HookError`. */
function runHook<Deps>(
  request: GateRequest<Deps>,
  index: number,
  args: unknown,
): MaybePromise<PreToolCallVerdict | undefined> {
  const { part } = request;
  return askHook(
    () =>
      request.hooks[index]!({
        name: part.name,
        args,
        annotations: request.tool!.annotations,
        toolCallId: part.id,
        step: request.step,
        provider: request.provider.name,
        model: request.provider.model,
        deps: request.deps,
      }),
    readPreCallVerdict,
    (error) => hookThrew(index, part, error),
    (problem) =>
      new HookError(
        `${hookName(index)} ${problem} (tool ${part.name}); the call did not run`,
        index,
        part.name,
        part.id,
      ),
  );
}

function hookThrew(index: number, part: ToolCallPart, error: unknown): HookError {
  return new HookError(
    `${hookName(index)} threw on tool ${part.name}: ${messageOf(error)}`,
    index,
    part.name,
    part.id,
    { cause: error },
  );
}

/**
 * Applies one hook's verdict: an outcome when it ends the chain (stop > block > result),
 * `undefined` when the chain goes on (after taking its `args` and `confirm`).
 */
function applyVerdict<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
  verdict: PreToolCallVerdict | undefined,
): MaybePromise<GateOutcome | undefined> {
  if (!verdict) return undefined;
  const by: DecidedBy = `hook:${index}`;
  if (verdict.stop) {
    const stop: GateOutcome = { kind: "stop", by, call: callOf(request.part, chain.args) };
    if (verdict.stopReason !== undefined) stop.reason = verdict.stopReason;
    return stop;
  }
  if (verdict.block !== undefined && verdict.block !== false) {
    const message =
      typeof verdict.block === "string" && verdict.block !== ""
        ? verdict.block
        : `the call to ${tool.name} was blocked`;
    return { kind: "block", by, call: callOf(request.part, chain.args), message };
  }
  if (verdict.result !== undefined) {
    return { kind: "result", by, call: callOf(request.part, chain.args), output: verdict.result };
  }
  if (verdict.confirm !== undefined) chain.confirm = { value: verdict.confirm, by };
  if (verdict.args === undefined) return undefined;
  const rejected = (problem: string) =>
    new HookError(
      `${hookName(index)} rewrote the args of ${tool.name} into args ${problem}; the call did not run`,
      index,
      tool.name,
      request.part.id,
    );
  const rewritten = argsFromValue(verdict.args, request.argsLimits);
  if (!rewritten.ok) throw rejected(`that are not JSON args: ${rewritten.message}`);
  return andThen(checkArgs(tool, rewritten.args), (checked) => {
    if (!checked.ok) throw rejected(`its schema rejects: ${checked.message}`);
    chain.args = checked.args;
    chain.parsed = checked.parsed;
    return undefined;
  });
}

/** The decision: policy DENY, else the last hook `confirm`, else the policy, else the tool, else ALLOW. */
function decide<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  call: ToolCall,
): MaybePromise<GateOutcome> {
  const { decideToolCall } = request.policy;
  const { confirm, parsed } = chain;
  if (!decideToolCall && confirm) return hookConfirm(confirm, call, parsed);
  const { needsApproval } = tool;
  const needed =
    typeof needsApproval === "function"
      ? callPolicy(
          "needsApproval",
          tool.name,
          () => needsApproval(call.args, request.context(tool)),
          readBoolean,
        )
      : needsApproval;
  return andThen(needed, (needed) => {
    if (!decideToolCall) return defaultDecision(needed, call, parsed);
    const answer = callPolicy(
      "decideToolCall",
      tool.name,
      () =>
        decideToolCall.call(request.policy, {
          call,
          tool,
          needsApproval: needed,
          step: request.step,
          deps: request.deps,
        }),
      readDecision,
    );
    return andThen(answer, (decision) => {
      if (decision?.decision === "DENY") {
        return withReason({ kind: "deny", by: "policy", call }, decision.reason);
      }
      if (confirm) return hookConfirm(confirm, call, parsed);
      if (decision?.decision === "ALLOW") {
        return withReason({ kind: "allow", by: "policy", call, parsed }, decision.reason);
      }
      if (decision) {
        return withReason({ kind: "needs-approval", by: "policy", call }, decision.reason);
      }
      return defaultDecision(needed, call, parsed);
    });
  });
}

function defaultDecision(needsApproval: boolean, call: ToolCall, parsed: unknown): GateOutcome {
  return needsApproval
    ? { kind: "needs-approval", by: "tool", call }
    : { kind: "allow", by: "default", call, parsed };
}

function hookConfirm(
  confirm: { value: boolean; by: DecidedBy },
  call: ToolCall,
  parsed: unknown,
): GateOutcome {
  return confirm.value
    ? { kind: "needs-approval", by: confirm.by, call }
    : { kind: "allow", by: confirm.by, call, parsed };
}

type NormalDecision = { decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL"; reason?: string };

const DECISIONS = new Set(["ALLOW", "DENY", "NEEDS_APPROVAL"]);
const ANSWERS = '"ALLOW", "DENY", "NEEDS_APPROVAL", { decision, reason? } or undefined';

/** Reads `decideToolCall`'s answer: one of the documented forms, or a problem. */
function readDecision(
  answer: unknown,
): { ok: true; value: NormalDecision | undefined } | { ok: false; problem: string } {
  if (answer === undefined) return { ok: true, value: undefined };
  if (DECISIONS.has(answer as string)) {
    return { ok: true, value: { decision: answer as NormalDecision["decision"] } };
  }
  const refuse = {
    ok: false as const,
    problem: `returned ${shortForm(answer)}; return ${ANSWERS}`,
  };
  if (!isPlainObject(answer)) return refuse;
  const keys = Object.keys(answer);
  if (keys.some((key) => key !== "decision" && key !== "reason")) return refuse;
  const { decision, reason } = answer;
  if (!DECISIONS.has(decision as string)) return refuse;
  if (reason !== undefined && typeof reason !== "string") return refuse;
  const value: NormalDecision = { decision: decision as NormalDecision["decision"] };
  if (reason !== undefined) value.reason = reason;
  return { ok: true, value };
}

function withReason<T extends GateOutcome>(outcome: T, reason: string | undefined): T {
  if (reason !== undefined) (outcome as { reason?: string }).reason = reason;
  return outcome;
}
