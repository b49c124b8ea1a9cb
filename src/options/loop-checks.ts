import type { LoopPolicy } from "../gate/policy.js";
import type { RunStore } from "../state/run-store.js";
import { RUN_STORE_METHODS } from "../state/run-store.js";
import type { ArgsLimits } from "../tools/args.js";
import { DEFAULT_ARGS_LIMITS } from "../tools/args.js";
import { checkKeys } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";
import type { AgentLoopBaseOptions, AgentLoopOptions } from "./loop-options.js";
import { wholeNumber } from "./value-checks.js";

/** The methods a policy may have. */
const POLICY_KEYS = ["decideToolCall", "endsRun", "prepareStep", "executeTool"] as const;

/**
 * `allowReplay`, checked: a loop with a `signingKey` resumes signed states by value, and only a
 * `store` that claims them keeps two loops from resuming one state twice, so a key without a
 * store is refused unless `allowReplay: true` says replays are acceptable.
 */
export function checkReplay(
  options: Pick<AgentLoopBaseOptions, "allowReplay" | "signingKey" | "store">,
): boolean {
  const allowReplay = options.allowReplay ?? false;
  if (typeof allowReplay !== "boolean") {
    throw new TypeError("AgentLoop: `allowReplay` must be true or false");
  }
  if (options.signingKey !== undefined && options.store === undefined && !allowReplay) {
    throw new TypeError(
      "AgentLoop: a loop with a `signingKey` resumes signed states passed by value, and without a `store` to claim them two loops (two processes, or a new AgentLoop per request) can each resume the same state and run its tools twice. " +
        "Give it a store: `store: memoryRunStore()` in one process, a shared one (tollgate/redis, tollgate/postgres, tollgate/file-store) across processes; or set `allowReplay: true` if running a paused call twice is acceptable " +
        "(a sub-agent's states are claimed by its parent's resume, so a loop used only through asTool() can say it)",
    );
  }
  return allowReplay;
}

/** A hook chain option: an array of functions (a lone function is refused with what to write). */
export function hookList<Hook>(name: string, hooks: Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  if (typeof hooks === "function") {
    throw new TypeError(
      `AgentLoop: \`${name}\` must be an array of hooks; write ${name}: [yourHook]`,
    );
  }
  if (!Array.isArray(hooks) || hooks.some((hook) => typeof hook !== "function")) {
    throw new TypeError(`AgentLoop: \`${name}\` must be an array of functions`);
  }
  return [...hooks];
}

/** Throws a `TypeError` unless an optional option is of its type: a typo'd callback fails here, not mid-run. */
export function optionalType(name: string, value: unknown, type: "string" | "function"): void {
  if (value !== undefined && typeof value !== type) {
    throw new TypeError(`AgentLoop: \`${name}\` must be a ${type}, got ${kindOf(value)}`);
  }
}

/**
 * The policy, checked: an object whose known methods are functions. A plain object may hold
 * no other key (`decideToolcall` is a typo, not a policy that allows everything); a class
 * instance must have at least one of the methods.
 */
export function checkPolicy<Deps>(policy: LoopPolicy<Deps> | undefined): LoopPolicy<Deps> {
  if (policy === undefined) return {};
  if (typeof policy === "function") {
    throw new TypeError(
      "AgentLoop: `policy` is an object of methods, not a function; write policy: { decideToolCall: yourFunction }",
    );
  }
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new TypeError(
      `AgentLoop: \`policy\` must be an object of methods, got ${kindOf(policy)}`,
    );
  }
  if (isPlainObject(policy)) checkKeys("AgentLoop policy", policy, POLICY_KEYS);
  else if (!POLICY_KEYS.some((key) => typeof policy[key] === "function")) {
    throw new TypeError(
      `AgentLoop: \`policy\` has none of the policy methods (${POLICY_KEYS.join(", ")})`,
    );
  }
  for (const key of POLICY_KEYS) {
    const method = policy[key];
    if (method !== undefined && typeof method !== "function") {
      throw new TypeError(`AgentLoop: policy.${key} must be a function, got ${kindOf(method)}`);
    }
  }
  return policy;
}

/** The `store` option, checked: every `RunStore` method present, so a missing one fails now, not mid-run. */
export function checkStore(store: RunStore): RunStore {
  if (typeof store !== "object" || store === null) {
    throw new TypeError(`AgentLoop: \`store\` must be a RunStore, got ${kindOf(store)}`);
  }
  const missing = RUN_STORE_METHODS.filter(
    (method) => typeof (store as unknown as Record<string, unknown>)[method] !== "function",
  );
  if (missing.length > 0) {
    throw new TypeError(
      `AgentLoop: \`store\` is missing ${missing.map((m) => `${m}()`).join(", ")}; a RunStore has ${RUN_STORE_METHODS.map((m) => `${m}()`).join(", ")} (leases keep two processes off one run)`,
    );
  }
  return store;
}

/** The `stateMigrations` option, checked and copied: each key a whole version, each value a function. */
export function checkMigrations(
  migrations: AgentLoopOptions<unknown>["stateMigrations"],
): Record<number, (state: any) => unknown> {
  if (migrations === undefined) return {};
  if (!isPlainObject(migrations)) {
    throw new TypeError(
      "AgentLoop: `stateMigrations` must be an object { [fromVersion]: migrate }",
    );
  }
  for (const [version, migrate] of Object.entries(migrations)) {
    if (!/^(0|[1-9][0-9]*)$/.test(version) || typeof migrate !== "function") {
      throw new TypeError(
        `AgentLoop: stateMigrations[${JSON.stringify(version)}] must be a function keyed by a whole version number`,
      );
    }
  }
  return { ...migrations };
}

/** The `argsLimits` option, with the defaults for what it leaves out (1 MB, depth 64). */
export function checkArgsLimits(limits: Partial<ArgsLimits> | undefined): ArgsLimits {
  if (limits === undefined) return DEFAULT_ARGS_LIMITS;
  checkKeys("AgentLoop argsLimits", limits, ["maxBytes", "maxDepth"], {
    depth: "maxDepth",
    maxNesting: "maxDepth",
    bytes: "maxBytes",
    size: "maxBytes",
    maxSize: "maxBytes",
    maxLength: "maxBytes",
  });
  return Object.freeze({
    maxBytes: wholeNumber(
      "argsLimits.maxBytes",
      limits.maxBytes ?? DEFAULT_ARGS_LIMITS.maxBytes,
      1,
    ),
    maxDepth: wholeNumber(
      "argsLimits.maxDepth",
      limits.maxDepth ?? DEFAULT_ARGS_LIMITS.maxDepth,
      1,
    ),
  });
}
