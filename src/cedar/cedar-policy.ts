import type {
  AuthorizationAnswer,
  DetailedError,
  EntityJson,
  Policy,
  Schema,
} from "@cedar-policy/cedar-wasm/nodejs";
import type { LoopPolicy, Tool, ToolAnnotations, ToolCall } from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";
import { type CedarWasm, loadCedarWasm, nodeRequire } from "./load.js";

/** Loaded when this entry is imported: a missing peer is an error that says to install it. */
const cedar: CedarWasm = loadCedarWasm(nodeRequire());

/** A Cedar entity uid: `User::"alice"` is `{ type: "User", id: "alice" }`. */
export interface CedarEntityUid {
  type: string;
  id: string;
}

/** Options of `cedarPolicy`. */
export interface CedarPolicyOptions<Deps = unknown> {
  /** The Cedar policy set, as Cedar text. A policy's id is its `@id("…")`, else `policy<index>`. */
  policies: string;
  /** The entities (users, groups and their parents and attributes), in Cedar's JSON form. */
  entities?: EntityJson[] | undefined;
  /** A Cedar schema (text or JSON): the policies are validated against it, and every request too. */
  schema?: Schema | undefined;
  /** The run's user as a Cedar entity, from the run's deps. A missing or invalid one is a DENY. */
  principal: (deps: Deps) => CedarEntityUid | undefined;
}

/** What Cedar answered for a call, and the policy ids that decided it. */
export interface CedarExplanation {
  /** Cedar's own decision (before `@ask` and fail-closed errors are applied). */
  cedar: "allow" | "deny" | "error";
  /** The loop's verdict for the call. */
  decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL";
  /** The determining policies: the permits that allowed, or the forbids that denied. */
  policies: string[];
  /** Why, as the model or an approver reads it. */
  reason: string;
  /** Cedar's evaluation errors, by policy (any error is a DENY). */
  errors: string[];
}

/** A `LoopPolicy` that asks Cedar, with `explain` for one call. */
export interface CedarPolicy<Deps = unknown> extends LoopPolicy<Deps> {
  decideToolCall(args: { call: ToolCall; tool: Tool<Deps>; deps: Deps }): {
    decision: "ALLOW" | "DENY" | "NEEDS_APPROVAL";
    reason: string;
  };
  /**
   * Cedar's decision for `call` by the user of `deps` (with `tool`'s annotations in the
   * context), and the policies that made it. Not enumerable: `{ ...policy }` leaves it out.
   */
  explain(
    call: Pick<ToolCall, "name" | "args">,
    deps: Deps,
    tool?: Pick<Tool, "annotations">,
  ): CedarExplanation;
}

const KEYS = ["policies", "entities", "schema", "principal"] as const;

/**
 * A `LoopPolicy` whose `decideToolCall` asks Cedar (`@cedar-policy/cedar-wasm`, in process),
 * for teams whose rules already live in a policy engine. Each call is the request:
 * - principal: `options.principal(deps)`, the run's user (missing or invalid: DENY);
 * - action: `Action::"<tool name>"`, resource: `Tool::"<tool name>"`;
 * - context: `{ args, annotations }`, the call's args in the model's form and the tool's MCP
 *   hints (`{}` when it has none).
 *
 * Cedar's allow is ALLOW, its deny is DENY naming the determining forbid policies (or saying no
 * permit matched). Cedar has no "ask": an allow whose determining permits include one annotated
 * `@ask` is NEEDS_APPROVAL. It fails closed: an evaluation error in any policy (a missing
 * attribute, a value Cedar has no type for, such as a fractional number) is a DENY with the
 * error, since Cedar itself skips a policy that errs, which would let an erring forbid allow.
 * Policies that fail to parse or to validate against `schema`, and bad options, throw a
 * `TypeError` here.
 *
 * @example
 * const policy = cedarPolicy<{ user: string }>({
 *   policies: `permit(principal, action == Action::"search", resource);`,
 *   principal: (deps) => ({ type: "User", id: deps.user }),
 * });
 */
export function cedarPolicy<Deps = any>(options: CedarPolicyOptions<Deps>): CedarPolicy<Deps> {
  checkKeys("cedarPolicy()", options, KEYS, { policy: "policies", entitys: "entities" });
  const { policies, entities = [], schema, principal } = options;
  if (typeof policies !== "string") {
    throw new TypeError(
      `cedarPolicy(): policies must be Cedar policy text, got ${kindOf(policies)}`,
    );
  }
  if (typeof principal !== "function") {
    throw new TypeError(
      `cedarPolicy(): principal must be a function from the run's deps to a Cedar entity uid ({ type, id }), got ${kindOf(principal)}`,
    );
  }
  if (!Array.isArray(entities)) {
    throw new TypeError(
      `cedarPolicy(): entities must be an array of Cedar entities, got ${kindOf(entities)}`,
    );
  }
  const { byId, asks } = policySet(policies);
  if (schema !== undefined) {
    checkAnswer("schema", cedar.checkParseSchema(schema));
    const answer = cedar.validate({ schema, policies: { staticPolicies: byId } });
    if (answer.type === "failure") checkAnswer("schema", answer);
    else if (answer.validationErrors.length > 0) {
      const shown = answer.validationErrors.map((e) => `${e.policyId}: ${e.error.message}`);
      throw new TypeError(
        `cedarPolicy(): the policies do not validate against the schema: ${shown.join("; ")}`,
      );
    }
  }
  checkAnswer("entities", cedar.checkParseEntities({ entities, schema: schema ?? null }));
  const request = { policies: { staticPolicies: byId }, entities: [...entities] };

  const explain = (
    call: Pick<ToolCall, "name" | "args">,
    deps: Deps,
    tool?: Pick<Tool, "annotations">,
  ): CedarExplanation => {
    let who: unknown;
    try {
      who = principal(deps);
    } catch (error) {
      return failed(`principal() threw: ${(error as Error)?.message ?? String(error)}`);
    }
    if (!isEntityUid(who)) {
      return failed(
        `principal() gave no Cedar entity uid ({ type, id } of non-empty strings) for this run's deps, got ${kindOf(who)}`,
      );
    }
    const context = { args: call.args, annotations: annotationsOf(tool?.annotations) };
    let answer: AuthorizationAnswer;
    try {
      answer = cedar.isAuthorized({
        ...request,
        principal: { type: who.type, id: who.id },
        action: { type: "Action", id: call.name },
        resource: { type: "Tool", id: call.name },
        context: context as never,
        ...(schema === undefined ? {} : { schema, validateRequest: true }),
      });
    } catch (error) {
      return failed(`Cedar threw: ${(error as Error)?.message ?? String(error)}`);
    }
    if (answer.type === "failure") {
      return failed(`Cedar could not evaluate the request: ${messages(answer.errors)}`);
    }
    const { decision, diagnostics } = answer.response;
    const ids = [...diagnostics.reason];
    const errors = diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`);
    if (errors.length > 0) {
      return {
        cedar: "error",
        decision: "DENY",
        policies: ids,
        errors,
        reason: `Cedar policy evaluation failed (denied, failing closed): ${errors.join("; ")}`,
      };
    }
    const user = `${who.type}::${JSON.stringify(who.id)}`;
    if (decision === "allow") {
      const asking = ids.filter((id) => asks.has(id));
      return asking.length > 0
        ? {
            cedar: "allow",
            decision: "NEEDS_APPROVAL",
            policies: ids,
            errors,
            reason: `Cedar policy ${asking.join(", ")} (@ask) permits ${call.name} for ${user} with approval`,
          }
        : {
            cedar: "allow",
            decision: "ALLOW",
            policies: ids,
            errors,
            reason: `permitted by Cedar policy ${ids.join(", ")}`,
          };
    }
    return {
      cedar: "deny",
      decision: "DENY",
      policies: ids,
      errors,
      reason:
        ids.length > 0
          ? `forbidden by Cedar policy ${ids.join(", ")}`
          : `no Cedar policy permits ${call.name} for ${user}`,
    };
  };

  const policy = {
    decideToolCall({ call, tool, deps }: { call: ToolCall; tool: Tool<Deps>; deps: Deps }) {
      const { decision, reason } = explain(call, deps, tool);
      return { decision, reason };
    },
  } as CedarPolicy<Deps>;
  // Not enumerable: the loop checks a policy's keys, and `explain` is no method of LoopPolicy.
  Object.defineProperty(policy, "explain", { value: explain });
  return policy;
}

/** A DENY before or around Cedar (the request could not be made or answered). */
function failed(why: string): CedarExplanation {
  return {
    cedar: "error",
    decision: "DENY",
    policies: [],
    errors: [why],
    reason: `cedarPolicy: ${why}`,
  };
}

/** The policies keyed by id (`@id`, else `policy<index>`) and the ids annotated `@ask`. */
function policySet(text: string): { byId: Record<string, Policy>; asks: Set<string> } {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type === "failure") {
    throw new TypeError(`cedarPolicy(): the policies do not parse: ${messages(parts.errors)}`);
  }
  if (parts.policy_templates.length > 0) {
    throw new TypeError(
      "cedarPolicy(): the policies hold templates (?principal or ?resource slots), which nothing links here; write static policies",
    );
  }
  const byId: Record<string, Policy> = {};
  const asks = new Set<string>();
  parts.policies.forEach((policy, index) => {
    const json = cedar.policyToJson(policy);
    if (json.type === "failure") {
      throw new TypeError(`cedarPolicy(): the policies do not parse: ${messages(json.errors)}`);
    }
    const annotations = json.json.annotations ?? {};
    const id = typeof annotations.id === "string" ? annotations.id : `policy${index}`;
    if (Object.hasOwn(byId, id)) {
      throw new TypeError(`cedarPolicy(): two policies have the id "${id}"; give each its own @id`);
    }
    if (Object.hasOwn(annotations, "ask")) {
      if (json.json.effect !== "permit") {
        throw new TypeError(
          `cedarPolicy(): policy "${id}" is a forbid annotated @ask; @ask goes on a permit (an allow that needs approval)`,
        );
      }
      asks.add(id);
    }
    byId[id] = policy;
  });
  if (parts.policies.length === 0) {
    throw new TypeError(
      "cedarPolicy(): policies holds no policy (with none, Cedar denies everything)",
    );
  }
  return { byId, asks };
}

function checkAnswer(what: string, answer: { type: string; errors?: DetailedError[] }): void {
  if (answer.type === "failure") {
    throw new TypeError(
      `cedarPolicy(): ${what} is not valid Cedar: ${messages(answer.errors ?? [])}`,
    );
  }
}

function messages(errors: DetailedError[]): string {
  return errors
    .map((e) =>
      e.sourceLocations?.[0]?.label ? `${e.message} (${e.sourceLocations[0].label})` : e.message,
    )
    .join("; ");
}

function isEntityUid(value: unknown): value is CedarEntityUid {
  return (
    isPlainObject(value) &&
    typeof value.type === "string" &&
    value.type !== "" &&
    typeof value.id === "string" &&
    value.id !== ""
  );
}

/** The tool's MCP hints, without undefined values (Cedar has no undefined). */
function annotationsOf(annotations: ToolAnnotations | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
