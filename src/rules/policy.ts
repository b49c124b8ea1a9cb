import type { Decision, LoopPolicy, ToolAnnotations } from "tollgate";
import type { RuleEffect, RulesDocument } from "./document.js";
import { loadRules, STRICTNESS } from "./load.js";
import { hintsOf, type RuleCall, ruleMatches } from "./match.js";

/** A call as `explain` takes it: what `decideToolCall` reads of a call and its tool. */
export interface ExplainCall {
  name: string;
  args: unknown;
  /** The tool's MCP hints (`tool.annotations`); missing hints take the MCP defaults. */
  annotations?: ToolAnnotations | undefined;
}

/** The run around a call, for `explain`: what `decideToolCall` gets besides the call. */
export interface ExplainContext {
  /** Names of the tools executed so far in this run (for `history` rules); default none. */
  executed?: readonly string[] | undefined;
  /** The tool asks for approval itself (`needsApproval`): an allow becomes an ask. */
  needsApproval?: boolean | undefined;
}

/** Why a call got its decision. */
export interface Explanation {
  decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL";
  /** The rule that decided: the first (in document order) matching rule of the strictest effect; absent when the default decided. */
  rule?: string;
  reason: string;
  /** Every rule that matched, in document order. */
  matched: string[];
}

/** The rules policy: a `LoopPolicy` whose `decideToolCall` is `explain`'s decision, with its reason. */
export interface RulesPolicy<Deps = unknown> extends LoopPolicy<Deps> {
  decideToolCall: NonNullable<LoopPolicy<Deps>["decideToolCall"]>;
  /** The decision for a call and the rule that made it: the very function `decideToolCall` uses. */
  explain(call: ExplainCall, context?: ExplainContext): Explanation;
}

const DECISIONS: Record<RuleEffect, Explanation["decision"]> = {
  allow: "ALLOW",
  ask: "NEEDS_APPROVAL",
  deny: "DENY",
};

/**
 * A `LoopPolicy` from a rules document (JSON data: `rules.schema.json` is its schema). Every
 * matching rule is found; the strictest wins (deny > ask > allow), so order does not matter and
 * adding an allow never opens what a deny or an ask closes. No match: the document's `default`
 * (default "deny"). A tool that asks for approval itself turns an allow into an ask. The
 * document is checked at load, failing closed with a `TypeError` naming the rule and the path:
 * unknown keys (with a did-you-mean), wrong types, bad globs, duplicate ids, rules no call can
 * match, and rules a stricter rule always overrides.
 */
export function rulesPolicy<Deps = unknown>(document: RulesDocument): RulesPolicy<Deps> {
  const { fallback, rules } = loadRules(document);
  const explain = (call: ExplainCall, context?: ExplainContext): Explanation => {
    const executed = context?.executed;
    let ran: number | undefined;
    const ruleCall: RuleCall = {
      name: call.name,
      args: call.args,
      hints: hintsOf(call.annotations),
      ran: () => {
        ran ??= executed ? executed.filter((name) => name === call.name).length : 0;
        return ran;
      },
    };
    const matched = rules.filter((rule) => ruleMatches(rule, ruleCall));
    let winner = matched[0];
    for (const rule of matched) {
      if (STRICTNESS[rule.effect] > STRICTNESS[winner!.effect]) winner = rule;
    }
    const ids = matched.map((rule) => rule.id);
    let explanation: Explanation;
    if (winner) {
      explanation = {
        decision: DECISIONS[winner.effect],
        rule: winner.id,
        reason: winner.reason ?? `rule ${winner.id} (${winner.effect})`,
        matched: ids,
      };
    } else {
      explanation = {
        decision: DECISIONS[fallback],
        reason: `no rule matched (default ${fallback})`,
        matched: ids,
      };
    }
    if (explanation.decision === "ALLOW" && context?.needsApproval) {
      explanation.decision = "NEEDS_APPROVAL";
      explanation.reason = `${explanation.reason}; the tool asks for approval`;
    }
    return explanation;
  };
  const policy = {
    decideToolCall(args): Decision {
      const { decision, reason } = explain(
        { name: args.call.name, args: args.call.args, annotations: args.tool.annotations },
        { needsApproval: args.needsApproval, executed: args.executed },
      );
      return { decision, reason };
    },
  } as RulesPolicy<Deps>;
  // Not enumerable: the loop checks a policy's keys, and `explain` is for people, not the loop.
  Object.defineProperty(policy, "explain", { value: explain });
  return policy;
}
