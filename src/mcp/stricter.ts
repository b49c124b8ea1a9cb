import type { Decision } from "tollgate";
import { isPlainObject } from "../util/values.js";

const RANK: Record<string, number> = { ALLOW: 1, NEEDS_APPROVAL: 2, DENY: 3 };

/**
 * How strict a `decideToolCall` answer is: `undefined` 0, ALLOW 1, NEEDS_APPROVAL 2, DENY 3;
 * `null` for an answer that is not a recognisable decision (so the core can reject it).
 */
export function strictness(answer: unknown): number | null {
  if (answer === undefined) return 0;
  if (typeof answer === "string") return RANK[answer] ?? null;
  try {
    if (!isPlainObject(answer)) return null;
    if (Object.keys(answer).some((key) => key !== "decision" && key !== "reason")) return null;
    const { decision, reason } = answer;
    if (reason !== undefined && typeof reason !== "string") return null;
    return typeof decision === "string" ? (RANK[decision] ?? null) : null;
  } catch {
    return null; // a getter or a Proxy that throws: let the core read (and reject) it
  }
}

/**
 * The stricter of the user's answer and the MCP policy's: on a tie the user's (with its
 * reason); an answer of the user's that is not a recognisable decision is returned unchanged,
 * so the core rejects it as a `PolicyError`.
 */
export function stricter(theirs: unknown, ours: Decision): Decision {
  const rank = strictness(theirs);
  if (rank === null) return theirs as Decision;
  return (strictness(ours) ?? 0) > rank ? ours : (theirs as Decision);
}
