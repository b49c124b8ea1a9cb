import type { ToolCall } from "../types/messages.js";
import type { DecidedBy } from "../types/step-record.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy, readBoolean, shortForm } from "../util/policy-call.js";
import { isPlainObject } from "../util/values.js";
import type { GateOutcome, GateRequest } from "./gate-types.js";
import type { Chain } from "./hook-chain.js";

/**
 * The decision for a call the hooks let through: policy DENY, else the last hook `confirm`,
 * else the policy, else the tool's `needsApproval`, else ALLOW. The last stage of the gate;
 * `needsApproval` and `decideToolCall` are asked here only, through `callPolicy` (fail closed).
 */
export function decide<Deps>(
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
        decideToolCall.call(
          request.policy,
          decideArgs(call, tool, needed, request.step, request.deps, request.executed),
        ),
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

/**
 * `decideToolCall`'s argument, a plain object with its own copy of the run's `executed`. A
 * short list is copied at once (a data property); a long one only when read (a getter), so a
 * call costs the same at step 10 and at step 10,000.
 */
function decideArgs<Deps>(
  call: ToolCall,
  tool: Tool<Deps>,
  needsApproval: boolean,
  step: number,
  deps: Deps,
  executed: readonly string[] | undefined,
) {
  if (executed !== undefined && executed.length > COPY_AT_ONCE) {
    return {
      call,
      tool,
      needsApproval,
      step,
      deps,
      /** Names of the tools executed so far in this run (a copy). */
      get executed(): string[] {
        return executed.slice();
      },
    };
  }
  return {
    call,
    tool,
    needsApproval,
    step,
    deps,
    /** Names of the tools executed so far in this run (a copy). */
    executed: executed ? executed.slice() : [],
  };
}

/**
 * Up to this many names, `executed` is copied for every call. An object literal with a getter
 * costs about 650 ns to make (a closure and an accessor pair); a copy of 256 names about 180 ns.
 */
const COPY_AT_ONCE = 256;

/** The tool's say, when no one else decided: NEEDS_APPROVAL if it needs approval, else ALLOW. */
function defaultDecision(needsApproval: boolean, call: ToolCall, parsed: unknown): GateOutcome {
  return needsApproval
    ? { kind: "needs-approval", by: "tool", call }
    : { kind: "allow", by: "default", call, parsed };
}

/** The last hook's `confirm`: true asks a human, false lets the call through. */
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

/** The outcome with the policy's reason, when it gave one (no `reason: undefined` key). */
function withReason<T extends GateOutcome>(outcome: T, reason: string | undefined): T {
  if (reason !== undefined) (outcome as { reason?: string }).reason = reason;
  return outcome;
}
