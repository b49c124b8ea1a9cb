import { parseArgs } from "../tools/args.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { approvedByMemory, refusedBefore, refusedByMemory } from "./approval-memory.js";
import { decide } from "./decision.js";
import { frozenCall } from "./frozen-call.js";
import type { GateOutcome, GateRequest } from "./gate-types.js";
import { type Chain, dispatch } from "./hook-chain.js";
import { repaired } from "./repair.js";

export type { GateOutcome, GateRequest } from "./gate-types.js";

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
      if (read.ok) return judge(request, tool, { args: read.args, parsed: read.parsed });
      const invalid: GateOutcome = { kind: "invalid", by: "schema", message: read.message };
      return request.repair ? repaired(request, tool, invalid, judge) : invalid;
    },
  );
}

/** A call that is not callable in this step, with the tools that are. */
function unavailable(name: string, callable: readonly string[]): GateOutcome {
  const tools = `the tools you can call are: ${callable.join(", ") || "none"}`;
  const message =
    name === ""
      ? `the call came without a tool name; ${tools}`
      : `tool ${name} is not available in this step; ${tools}`;
  return { kind: "unavailable", by: "default", message };
}

/** Args read and validated (the model's, or repaired) → the hook chain → `afterHooks`. */
function judge<Deps>(request: GateRequest<Deps>, tool: Tool<Deps>, chain: Chain) {
  return dispatch(request, tool, chain, 0, afterHooks);
}

/** Once every hook let the call through: an earlier refusal, a remembered decision, the decision. */
function afterHooks<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
): MaybePromise<GateOutcome> {
  const { part } = request;
  const call = frozenCall(part.id, part.name, chain.args, part.args);
  const refused = request.refused(call);
  if (refused) return refusedBefore(call, refused);
  const remembered = request.remembered?.(call.name);
  if (remembered && !remembered.approve) return refusedByMemory(call, remembered);
  const decision = decide(request, tool, chain, call);
  return remembered ? approvedByMemory(decision, chain.parsed) : decision;
}
