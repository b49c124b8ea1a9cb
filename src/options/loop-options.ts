import type { LoopPolicy } from "../gate/policy.js";
import { checkSettings } from "../model/settings.js";
import type { OutputOption, ResolvedOutput } from "../output/output-option.js";
import { resolveOutput } from "../output/output-option.js";
import type { RunStore } from "../state/run-store.js";
import { RUN_STORE_METHODS } from "../state/run-store.js";
import type { StoreCalls } from "../state/store-calls.js";
import { storeCalls } from "../state/store-calls.js";
import type { ArgsLimits } from "../tools/args.js";
import { DEFAULT_ARGS_LIMITS } from "../tools/args.js";
import { notAToolMessage, toolLike } from "../tools/foreign-tools.js";
import type { Tool } from "../tools/tool.js";
import { Toolset } from "../tools/toolset.js";
import type { ListenerErrorHandler, LoopListener } from "../types/events.js";
import type { PostToolCallHook, PreToolCallHook } from "../types/hooks.js";
import type { ToolSpec } from "../types/messages.js";
import type { ModelSettings, Provider } from "../types/provider.js";
import type { FormatToolError, RepairToolCall } from "../types/tool-feedback.js";
import { checkKeys, isPlainObject, kindOf, shownValue } from "../util/option-keys.js";
import type { UsageLimits } from "../util/usage-limits.js";
import { checkLimits } from "../util/usage-limits.js";
import type { StopCondition } from "./stop-conditions.js";
import { checkStopWhen } from "./stop-conditions.js";

/**
 * What `new AgentLoop()` takes. Only `provider` is required, and `deps` when the tools, hooks
 * or policy need them: a `Deps` that does not admit `undefined` makes `deps` required.
 */
export type AgentLoopOptions<Deps = unknown> = AgentLoopBaseOptions<Deps> & DepsOption<Deps>;

/**
 * The `deps` option: passed to every tool, hook and policy call (a run may give its own).
 * Optional when `Deps` admits `undefined` (`unknown`, the default, does), required otherwise,
 * so a loop whose tools read `ctx.deps` cannot be built without them.
 */
export type DepsOption<Deps> = undefined extends Deps
  ? { deps?: Deps | undefined }
  : { deps: Deps };

/** Every option of `new AgentLoop()` but `deps` (see `AgentLoopOptions`). */
export interface AgentLoopBaseOptions<Deps = unknown> {
  provider: Provider;
  tools?: Toolset<Deps> | Tool<Deps>[] | Record<string, Tool<Deps>> | undefined;
  /** The system prompt. */
  instructions?: string | undefined;
  /** Pre-call hooks, run in this order for every call. */
  preToolCall?: PreToolCallHook<Deps>[] | undefined;
  /**
   * Post-call hooks, run in this order on every executed call's result before the model sees
   * it: replace the output, block it, or stop the run.
   */
  postToolCall?: PostToolCallHook<Deps>[] | undefined;
  policy?: LoopPolicy<Deps> | undefined;
  /** Model calls per run (default 20); past it the run ends with status "max_steps". */
  maxSteps?: number | undefined;
  /** Calls of one step that run at once (default 8); results keep call order. */
  maxParallelToolCalls?: number | undefined;
  /** "continue" (default): a throwing tool gives the model an error result. "throw": the run rejects. */
  toolErrors?: "continue" | "throw" | undefined;
  /** Calls to tools that are not callable, fed back before the run rejects (default 1). */
  maxRetries?: number | undefined;
  /** Sampling settings sent with every model request. */
  settings?: ModelSettings | undefined;
  /** Where listener errors go (default `console.error`). */
  onListenerError?: ListenerErrorHandler | undefined;
  /** Aborts every run of this loop. */
  signal?: AbortSignal | undefined;
  onEvent?: LoopListener | undefined;
  /**
   * Keeps states across processes: paused states and checkpoints around every tool call are
   * written to it, and `resume()` claims a state there, so it runs once across workers.
   */
  store?: RunStore | undefined;
  /**
   * Signs every state written (HMAC-SHA-256); `resume()` then rejects a state without a valid
   * signature, whatever else is given. Use it whenever a state leaves your process by value.
   */
  signingKey?: string | Uint8Array | undefined;
  /**
   * `true`: states passed to `resume()` by value are trusted as they are, without a signature
   * or digests. Only for states that never left your own process or storage.
   */
  trustState?: boolean | undefined;
  /**
   * `true`: this loop may resume a state by value (signed, or with digests) without a `store`
   * to claim it, so two loops, or two processes, can each resume the same state and run its
   * tools again. By default such a loop is refused: give it a `store` (`memoryRunStore()` in
   * one process) and a state resumes once everywhere. Only for tools safe to run twice.
   */
  allowReplay?: boolean | undefined;
  /** Limits on the args text the model sends (default 1 MB, nesting depth 64). */
  argsLimits?: Partial<ArgsLimits> | undefined;
  /** A call a human refused, asked again with the same args: "auto-deny" (default) or "ask" again. */
  repeatDenied?: "auto-deny" | "ask" | undefined;
  /**
   * Fixes the args of calls that failed parsing or validation before the model is told:
   * return fixed args (validated again, then gated like the model's own) or `undefined`.
   * A repair counts like a retry against the tool's `maxRetries`.
   */
  repairToolCall?: RepairToolCall<Deps> | undefined;
  /**
   * Writes the text the model reads for blocked, denied, invalid, unavailable and refused
   * calls (`info.message` is the default text); must return a string.
   */
  formatToolError?: FormatToolError | undefined;
  /** Upgrades states of older versions: `{ [fromVersion]: (state) => stateOfNextVersion }`. */
  stateMigrations?: Record<number, (state: any) => unknown> | undefined;
  /**
   * Structured output: the final answer's schema (or `{ schema, mode?, name?, description? }`);
   * the answer is validated and comes back as `result.output`. A run may give its own.
   */
  output?: OutputOption<any> | undefined;
  /**
   * Caps per run on model calls, tool executions and tokens; reaching one ends the run with
   * status "limit_reached". A run may give its own, key by key over these.
   */
  limits?: UsageLimits | undefined;
  /**
   * Conditions over the steps so far (`stepCountIs(n)`, `hasToolCall(name)`, or your own),
   * asked in order after each step that would let the run go on; the first that answers
   * `true` ends the run with status "stopped_by_condition". A run may give its own list.
   */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /**
   * Milliseconds a whole run may take (each `run()` or `resume()`); past it the run is
   * aborted and rejects with `RunTimeoutError`. A run may give its own.
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds each model call may take, from the request to the last streamed part; past
   * it the call is aborted and the run rejects with `ModelTimeoutError` (a `ProviderError`).
   * Distinct from a tool's `timeoutMs`. A run may give its own.
   */
  modelTimeoutMs?: number | undefined;
}

/** The options, checked and with defaults filled in, once per loop. */
export interface ResolvedOptions<Deps> {
  provider: Provider;
  tools: Toolset<Deps>;
  /** Specs of every tool, computed once, for steps without `prepareStep`. */
  specs: ToolSpec[];
  deps: Deps;
  instructions: string | undefined;
  hooks: readonly PreToolCallHook<Deps>[];
  /** The post-call chain (`postToolCall`). */
  postHooks: readonly PostToolCallHook<Deps>[];
  policy: LoopPolicy<Deps>;
  maxSteps: number;
  maxParallelToolCalls: number;
  toolErrors: "continue" | "throw";
  maxRetries: number;
  settings: ModelSettings | undefined;
  signal: AbortSignal | undefined;
  /** The store, behind the loop's guards. */
  store: StoreCalls | undefined;
  signingKey: string | Uint8Array | undefined;
  trustState: boolean;
  /** A state by value may resume without a store to claim it (`allowReplay`). */
  allowReplay: boolean;
  argsLimits: ArgsLimits;
  repeatDenied: "auto-deny" | "ask";
  repairToolCall: RepairToolCall<Deps> | undefined;
  formatToolError: FormatToolError | undefined;
  stateMigrations: Record<number, (state: any) => unknown>;
  /** The loop's structured output, checked. */
  output: ResolvedOutput | undefined;
  limits: Readonly<UsageLimits>;
  stopWhen: readonly StopCondition<Deps>[];
  timeoutMs: number | undefined;
  modelTimeoutMs: number | undefined;
  /**
   * The tools of a step without `prepareStep`, made on the first step (see `prepareStep`), with
   * the toolset they were made from: a copy of these options with other tools makes its own.
   */
  everyTool: { tools: Toolset<Deps>; offered: unknown } | undefined;
}

/** The keys `new AgentLoop()` knows; anything else is a typo, refused. */
const LOOP_KEYS = [
  "provider",
  "tools",
  "deps",
  "instructions",
  "preToolCall",
  "postToolCall",
  "policy",
  "maxSteps",
  "maxParallelToolCalls",
  "toolErrors",
  "maxRetries",
  "settings",
  "onListenerError",
  "signal",
  "onEvent",
  "store",
  "signingKey",
  "trustState",
  "allowReplay",
  "repeatDenied",
  "repairToolCall",
  "formatToolError",
  "stateMigrations",
  "argsLimits",
  "output",
  "limits",
  "stopWhen",
  "timeoutMs",
  "modelTimeoutMs",
] as const;

/** Names other agent libraries use, mapped to ours. */
const LOOP_ALIASES: Record<string, string> = {
  model: "provider",
  hooks: "preToolCall",
  beforeToolCall: "preToolCall",
  afterToolCall: "postToolCall",
  system: "instructions",
  systemPrompt: "instructions",
  prompt: "instructions",
  maxTurns: "maxSteps",
  usageLimits: "limits",
  usageLimit: "limits",
  timeout: "timeoutMs",
};

const POLICY_KEYS = ["decideToolCall", "endsRun", "prepareStep", "executeTool"] as const;

/** Checks the options eagerly, with errors that say what to pass instead. */
export function resolveOptions<Deps>(options: AgentLoopOptions<Deps>): ResolvedOptions<Deps> {
  checkKeys("AgentLoop", options, LOOP_KEYS, LOOP_ALIASES);
  const { provider } = options;
  if (!provider || typeof provider.generate !== "function") {
    throw new TypeError(
      "AgentLoop: `provider` must have a generate() method; build one with defineProvider()",
    );
  }
  const tools = toolsOf(options.tools);
  const hooks = options.preToolCall ?? [];
  if (typeof hooks === "function") {
    throw new TypeError(
      "AgentLoop: `preToolCall` must be an array of hooks; write preToolCall: [yourHook]",
    );
  }
  if (!Array.isArray(hooks) || hooks.some((hook) => typeof hook !== "function")) {
    throw new TypeError("AgentLoop: `preToolCall` must be an array of functions");
  }
  const repeatDenied = options.repeatDenied ?? "auto-deny";
  if (repeatDenied !== "auto-deny" && repeatDenied !== "ask") {
    throw new TypeError('AgentLoop: `repeatDenied` must be "auto-deny" or "ask"');
  }
  const { signingKey } = options;
  if (
    signingKey !== undefined &&
    !(typeof signingKey === "string" || signingKey instanceof Uint8Array)
  ) {
    throw new TypeError("AgentLoop: `signingKey` must be a string or a Uint8Array");
  }
  if (signingKey !== undefined && signingKey.length === 0) {
    throw new TypeError("AgentLoop: `signingKey` must not be empty");
  }
  const toolErrors = options.toolErrors ?? "continue";
  if (toolErrors !== "continue" && toolErrors !== "throw") {
    throw new TypeError('AgentLoop: `toolErrors` must be "continue" or "throw"');
  }
  const trustState = options.trustState ?? false;
  if (typeof trustState !== "boolean") {
    throw new TypeError("AgentLoop: `trustState` must be true or false");
  }
  const allowReplay = checkReplay(options);
  const maxRetries = wholeNumber("maxRetries", options.maxRetries ?? 1, 0);
  optionalType("instructions", options.instructions, "string");
  optionalType("onEvent", options.onEvent, "function");
  optionalType("onListenerError", options.onListenerError, "function");
  optionalType("repairToolCall", options.repairToolCall, "function");
  optionalType("formatToolError", options.formatToolError, "function");
  checkSignal("AgentLoop", options.signal);
  return {
    provider,
    tools,
    specs: tools.toSpecs(),
    deps: options.deps as Deps,
    instructions: options.instructions,
    hooks: [...hooks],
    postHooks: hookList("postToolCall", options.postToolCall),
    policy: checkPolicy(options.policy),
    maxSteps: wholeNumber("maxSteps", options.maxSteps ?? 20, 1),
    maxParallelToolCalls: wholeNumber("maxParallelToolCalls", options.maxParallelToolCalls ?? 8, 1),
    toolErrors,
    maxRetries,
    settings: checkSettings("AgentLoop", options.settings),
    signal: options.signal,
    store: options.store === undefined ? undefined : storeCalls(checkStore(options.store)),
    signingKey,
    trustState,
    allowReplay,
    repeatDenied,
    repairToolCall: options.repairToolCall,
    formatToolError: options.formatToolError,
    stateMigrations: checkMigrations(options.stateMigrations),
    argsLimits: checkArgsLimits(options.argsLimits),
    output: resolveOutput(options.output, provider, tools.names(), maxRetries, "AgentLoop"),
    limits: checkLimits("AgentLoop", options.limits),
    stopWhen: checkStopWhen<Deps>("AgentLoop", options.stopWhen) ?? [],
    timeoutMs: checkTimeout("AgentLoop", "timeoutMs", options.timeoutMs),
    modelTimeoutMs: checkTimeout("AgentLoop", "modelTimeoutMs", options.modelTimeoutMs),
    everyTool: undefined,
  };
}

/**
 * `allowReplay`, checked: a loop with a `signingKey` resumes signed states by value, and only a
 * `store` that claims them keeps two loops from resuming one state twice, so a key without a
 * store is refused unless `allowReplay: true` says replays are acceptable.
 */
function checkReplay(
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
function hookList<Hook>(name: string, hooks: Hook[] | undefined): Hook[] {
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

/**
 * The loop's tools: an array, a Toolset, or the AI SDK's `{ name: tool }` record (each key the
 * tool's name). Anything else, or an entry that is not a tool built by `tool()`, is a
 * `TypeError` that says what to write.
 */
function toolsOf<Deps>(tools: unknown): Toolset<Deps> {
  if (tools instanceof Toolset) return tools;
  if (tools === undefined) return Toolset.empty();
  if (Array.isArray(tools)) return Toolset.from(tools);
  if (isToolRecord(tools)) return Toolset.from(recordTools<Deps>(tools));
  const kind = toolLike(tools);
  if (kind === "tollgate-tool") {
    throw new TypeError("AgentLoop: `tools` is one tool; give a list: tools: [yourTool]");
  }
  if (kind !== undefined) {
    const problem = notAToolMessage(tools, "`tools`");
    throw new TypeError(`AgentLoop: ${problem}; and \`tools\` takes a list: tools: [yourTool]`);
  }
  throw new TypeError(
    `AgentLoop: \`tools\` must be an array of tools, a { name: tool } record or a Toolset, got ${kindOf(tools)}`,
  );
}

/**
 * Whether `tools` is a `{ name: tool }` record: a plain object whose values are all objects
 * (a single tool, or a definition, has a string `name` and a function `execute`).
 */
function isToolRecord(tools: unknown): tools is Record<string, unknown> {
  return (
    isPlainObject(tools) &&
    Object.values(tools).every((value) => typeof value === "object" && value !== null)
  );
}

/** The tools of a `{ name: tool }` record; a key that is not its tool's name is refused. */
function recordTools<Deps>(record: Record<string, unknown>): Tool<Deps>[] {
  return Object.entries(record).map(([key, value]) => {
    const where = `tools${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
    const problem = notAToolMessage(value, where, key);
    if (problem) throw new TypeError(`AgentLoop: ${problem}`);
    const tool = value as Tool<Deps>;
    if (tool.name !== key) {
      throw new TypeError(
        `AgentLoop: ${where} holds the tool named ${JSON.stringify(tool.name)}; in a { name: tool } record each key is its tool's name (the name the model calls): write ${JSON.stringify(tool.name)}: <that tool>, or tools: [<that tool>]`,
      );
    }
    return tool;
  });
}

function optionalType(name: string, value: unknown, type: "string" | "function"): void {
  if (value !== undefined && typeof value !== type) {
    throw new TypeError(`AgentLoop: \`${name}\` must be a ${type}, got ${kindOf(value)}`);
  }
}

/**
 * The policy, checked: an object whose known methods are functions. A plain object may hold
 * no other key (`decideToolcall` is a typo, not a policy that allows everything); a class
 * instance must have at least one of the methods.
 */
function checkPolicy<Deps>(policy: LoopPolicy<Deps> | undefined): LoopPolicy<Deps> {
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

function checkStore(store: RunStore): RunStore {
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

function checkMigrations(
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

function checkArgsLimits(limits: Partial<ArgsLimits> | undefined): ArgsLimits {
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

/** Checks a timeout option (`timeoutMs`, `modelTimeoutMs`): a positive number of milliseconds. */
export function checkTimeout(where: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `${where}: \`${name}\` must be a positive number of milliseconds, got ${shownValue(value)}`,
    );
  }
  return value;
}

/** Checks a whole-number option; `where` names what took it ("AgentLoop", "run()"). */
export function wholeNumber(
  name: string,
  value: unknown,
  min: number,
  where = "AgentLoop",
): number {
  if (!Number.isInteger(value) || (value as number) < min) {
    throw new TypeError(
      `${where}: \`${name}\` must be a whole number >= ${min}, got ${shownValue(value)}`,
    );
  }
  return value as number;
}

/** Throws a `TypeError` unless `signal` is an AbortSignal or not given. */
export function checkSignal(where: string, signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${where}: \`signal\` must be an AbortSignal, got ${kindOf(signal)}`);
  }
}
