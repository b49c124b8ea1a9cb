import type { Decision, LoopPolicy, Tool, ToolAnnotations } from "tollgate";
import { isPromise } from "../util/maybe-promise.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";
import { stricter } from "./stricter.js";

/** A tool's MCP hints with the spec's defaults filled in for the ones it does not give. */
export interface ResolvedAnnotations {
  readonly title?: string | undefined;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * A tool's annotations with the MCP specification's defaults for missing hints: `readOnlyHint`
 * false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true. A tool that says
 * nothing is treated as destructive and open-world. A read-only tool is never destructive
 * (the spec: `destructiveHint` is meaningful only when not read-only).
 */
export function resolvedAnnotations(tool: Pick<Tool, "annotations">): ResolvedAnnotations {
  const given: ToolAnnotations = tool.annotations ?? {};
  const readOnlyHint = given.readOnlyHint ?? false;
  return {
    ...(given.title === undefined ? {} : { title: given.title }),
    readOnlyHint,
    destructiveHint: readOnlyHint ? false : (given.destructiveHint ?? true),
    idempotentHint: given.idempotentHint ?? false,
    openWorldHint: given.openWorldHint ?? true,
  };
}

/** What `mcpAnnotationsPolicy` does with a call of a kind of tool: nothing said is `undefined`. */
export type AnnotationVerdict = "ALLOW" | "DENY" | "NEEDS_APPROVAL";

/** Options of `mcpAnnotationsPolicy`: a verdict for each kind of tool (by its resolved hints). */
export interface McpAnnotationsPolicyOptions {
  /** Tools that may destroy or overwrite (not read-only, `destructiveHint` true or missing). */
  destructive?: AnnotationVerdict | undefined;
  /** Tools that reach an open world (`openWorldHint` true or missing). */
  openWorld?: AnnotationVerdict | undefined;
  /** Tools that change something (not read-only) but are not destructive. */
  write?: AnnotationVerdict | undefined;
  /** Tools that claim to be read-only. */
  readOnly?: AnnotationVerdict | undefined;
}

const KEYS = ["destructive", "openWorld", "write", "readOnly"] as const;
const HINTS = ["readOnlyHint", "destructiveHint", "openWorldHint"] as const;
const VERDICTS: readonly string[] = ["ALLOW", "DENY", "NEEDS_APPROVAL"];
const STRICTNESS: Record<AnnotationVerdict, number> = { ALLOW: 0, NEEDS_APPROVAL: 1, DENY: 2 };
const POLICY_METHODS = ["endsRun", "prepareStep", "executeTool"] as const;

/** The arguments `decideToolCall` gets. */
type DecideArgs<Deps> = Parameters<NonNullable<LoopPolicy<Deps>["decideToolCall"]>>[0];

/**
 * A `LoopPolicy` whose `decideToolCall` reads each tool's MCP annotations with the spec's
 * defaults (`resolvedAnnotations`) and answers the strictest verdict of the kinds the tool is
 * (DENY over NEEDS_APPROVAL over ALLOW). A tool of no kind given a verdict is left to the
 * default (the tool's `needsApproval`, then ALLOW). It applies to every tool of the loop, not
 * only MCP ones: a tool with no annotations is destructive and open-world by the spec's
 * defaults. The hints are the server's claims: use this to ask a human more often, not to
 * trust a tool more.
 *
 * Give your own policy as `policy`: it is returned with its other methods, and a
 * `decideToolCall` that asks yours too and answers the stricter of the two (DENY over
 * NEEDS_APPROVAL over ALLOW over no answer; on a tie, yours with its reason). Spreading this
 * policy and then adding your own `decideToolCall` would replace the MCP rule.
 *
 * @example
 * const policy = mcpAnnotationsPolicy(
 *   { destructive: "NEEDS_APPROVAL", openWorld: "NEEDS_APPROVAL" },
 *   { prepareStep: fs.prepareStep },
 * );
 */
export function mcpAnnotationsPolicy<Deps = any>(
  options: McpAnnotationsPolicyOptions,
  policy?: LoopPolicy<Deps>,
): LoopPolicy<Deps> {
  checkKeys("mcpAnnotationsPolicy()", options, KEYS, {
    destructiveHint: "destructive",
    openWorldHint: "openWorld",
    readOnlyHint: "readOnly",
  });
  for (const key of KEYS) {
    const value = options[key];
    if (value !== undefined && !VERDICTS.includes(value)) {
      throw new TypeError(
        `mcpAnnotationsPolicy(): ${key} must be "ALLOW", "DENY" or "NEEDS_APPROVAL", got ${shownValue(value)}`,
      );
    }
  }
  if (KEYS.every((key) => options[key] === undefined)) {
    throw new TypeError(
      "mcpAnnotationsPolicy(): give a verdict for at least one of destructive, openWorld, write or readOnly (with none, it would allow everything)",
    );
  }
  const rules = { ...options };
  const ours = (args: DecideArgs<Deps>): Decision =>
    verdictOf(rules, args.tool, args.needsApproval);
  if (policy === undefined) return { decideToolCall: ours };
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new TypeError(
      `mcpAnnotationsPolicy(): the second argument is your own LoopPolicy (an object of methods), got ${kindOf(policy)}`,
    );
  }
  const theirs = policy.decideToolCall;
  if (theirs !== undefined && typeof theirs !== "function") {
    throw new TypeError(
      `mcpAnnotationsPolicy(): policy.decideToolCall must be a function, got ${kindOf(theirs)}`,
    );
  }
  const combined: LoopPolicy<Deps> = { ...policy };
  for (const key of POLICY_METHODS) {
    const method = policy[key] as unknown;
    if (typeof method === "function") {
      (combined as Record<string, unknown>)[key] = method.bind(policy);
    }
  }
  combined.decideToolCall = (args) => {
    if (theirs === undefined) return ours(args);
    const answer = theirs.call(policy, args);
    return isPromise(answer)
      ? Promise.resolve(answer).then((value) => stricter(value, ours(args)))
      : stricter(answer, ours(args));
  };
  return combined;
}

/** The MCP rule's answer for one call of `tool`. */
function verdictOf(
  rules: McpAnnotationsPolicyOptions,
  tool: Pick<Tool, "annotations">,
  needsApproval: boolean,
): Decision {
  const hints = resolvedAnnotations(tool);
  const kinds: (keyof McpAnnotationsPolicyOptions)[] = [];
  if (hints.readOnlyHint) kinds.push("readOnly");
  else kinds.push(hints.destructiveHint ? "destructive" : "write");
  if (hints.openWorldHint) kinds.push("openWorld");
  let verdict: AnnotationVerdict | undefined;
  for (const kind of kinds) {
    const said = rules[kind];
    if (said !== undefined && (verdict === undefined || STRICTNESS[said] > STRICTNESS[verdict])) {
      verdict = said;
    }
  }
  if (verdict === "ALLOW" && needsApproval) return "NEEDS_APPROVAL";
  if (verdict === undefined) return undefined;
  return { decision: verdict, reason: reasonOf(tool, kinds) };
}

/** Why: the hints read, or that the tool gave none and the spec's defaults were used. */
function reasonOf(tool: Pick<Tool, "annotations">, kinds: string[]): string {
  const given = tool.annotations ?? {};
  if (HINTS.every((hint) => given[hint] === undefined)) {
    const named = kinds.map((kind) => (kind === "openWorld" ? "open-world" : kind));
    return `no MCP hints: treated as ${named.join(", ")} (MCP defaults)`;
  }
  const defaulted = (kind: string) =>
    (kind === "destructive" && given.destructiveHint === undefined) ||
    (kind === "openWorld" && given.openWorldHint === undefined);
  return `MCP hints: ${kinds.map((kind) => (defaulted(kind) ? `${kind} (MCP default)` : kind)).join(", ")}`;
}
