import type { LoopPolicy, Tool, ToolAnnotations } from "tollgate";
import { checkKeys, shownValue } from "../util/option-keys.js";

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
const VERDICTS: readonly string[] = ["ALLOW", "DENY", "NEEDS_APPROVAL"];
const STRICTNESS: Record<AnnotationVerdict, number> = { ALLOW: 0, NEEDS_APPROVAL: 1, DENY: 2 };

/**
 * A `LoopPolicy` whose `decideToolCall` reads each tool's MCP annotations with the spec's
 * defaults (`resolvedAnnotations`) and answers the strictest verdict of the kinds the tool is
 * (DENY over NEEDS_APPROVAL over ALLOW). A tool of no kind given a verdict is left to the
 * default (the tool's `needsApproval`, then ALLOW). The hints are the server's claims: use
 * this to ask a human more often, not to trust a tool more.
 *
 * @example
 * const policy = mcpAnnotationsPolicy({ destructive: "NEEDS_APPROVAL", openWorld: "NEEDS_APPROVAL" });
 */
export function mcpAnnotationsPolicy(options: McpAnnotationsPolicyOptions): LoopPolicy<any> {
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
  const rules = { ...options };
  return {
    decideToolCall({ tool, needsApproval }) {
      const hints = resolvedAnnotations(tool);
      const kinds: (keyof McpAnnotationsPolicyOptions)[] = [];
      if (hints.readOnlyHint) kinds.push("readOnly");
      else kinds.push(hints.destructiveHint ? "destructive" : "write");
      if (hints.openWorldHint) kinds.push("openWorld");
      let verdict: AnnotationVerdict | undefined;
      for (const kind of kinds) {
        const said = rules[kind];
        if (
          said !== undefined &&
          (verdict === undefined || STRICTNESS[said] > STRICTNESS[verdict])
        ) {
          verdict = said;
        }
      }
      if (verdict === "ALLOW" && needsApproval) return "NEEDS_APPROVAL";
      if (verdict === undefined) return undefined;
      return { decision: verdict, reason: `MCP hints: ${kinds.join(", ")}` };
    },
  };
}
