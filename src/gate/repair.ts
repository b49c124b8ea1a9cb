import { type ArgsLimits, argsFromValue, checkArgs, withoutAdvice } from "../tools/args.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { callPolicy } from "../util/policy-call.js";
import type { GateOutcome, GateRequest } from "./gate-types.js";
import type { AfterHooks } from "./hook-chain.js";

/**
 * Asks `repairToolCall` to fix a call's args: fixed args are read like a hook's rewrite,
 * validated again and then judged (`judge`: hooks and decision) like the model's own; no fix
 * (or a fix the schema rejects) leaves the call invalid. A throw, or an answer JSON cannot
 * carry, is `PolicyError`. Asked only for a call whose args failed, and only when the loop has
 * a `repairToolCall`.
 */
export function repaired<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  invalid: GateOutcome & { kind: "invalid" },
  judge: AfterHooks<Deps>,
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
      return andThen(judge(request, tool, chain), (outcome) => {
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
