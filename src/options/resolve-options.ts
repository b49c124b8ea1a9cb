import { checkSettings } from "../model/settings.js";
import { resolveOutput } from "../output/output-option.js";
import { storeCalls } from "../state/store-calls.js";
import { Toolset } from "../tools/toolset.js";
import { checkKeys } from "../util/option-keys.js";
import { checkLimits } from "../util/usage-limits.js";
import { checkAgentName, resolveHandoffs } from "./handoffs.js";
import {
  checkArgsLimits,
  checkMigrations,
  checkPolicy,
  checkReplay,
  checkStore,
  hookList,
  optionalType,
} from "./loop-checks.js";
import type {
  AgentLoopOptions,
  ModelHooks,
  ResolvedHandoff,
  ResolvedOptions,
} from "./loop-options.js";
import { checkStopWhen } from "./stop-conditions.js";
import { toolsetOf } from "./toolset-of.js";
import { checkSignal, checkTimeout, wholeNumber } from "./value-checks.js";

/** The keys `new AgentLoop()` knows; anything else is a typo, refused. */
const LOOP_KEYS = [
  "provider",
  "name",
  "handoffs",
  "tools",
  "deps",
  "instructions",
  "preToolCall",
  "postToolCall",
  "preModelCall",
  "postModelCall",
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
  inputGuardrails: "preModelCall",
  beforeModelCall: "preModelCall",
  afterModelCall: "postModelCall",
  system: "instructions",
  systemPrompt: "instructions",
  prompt: "instructions",
  maxTurns: "maxSteps",
  usageLimits: "limits",
  usageLimit: "limits",
  timeout: "timeoutMs",
};

/** Checks the options eagerly, with errors that say what to pass instead. */
export function resolveOptions<Deps>(options: AgentLoopOptions<Deps>): ResolvedOptions<Deps> {
  checkKeys("AgentLoop", options, LOOP_KEYS, LOOP_ALIASES);
  const { provider } = options;
  if (!provider || typeof provider.generate !== "function") {
    throw new TypeError(
      "AgentLoop: `provider` must have a generate() method; build one with defineProvider()",
    );
  }
  const name = checkAgentName(options.name);
  const handoffs = resolveHandoffs<Deps>(options.handoffs, name);
  const own = toolsetOf(options.tools);
  const tools = handoffs ? withHandoffTools(own, handoffs) : own;
  const hooks = hookList("preToolCall", options.preToolCall ?? []);
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
    name,
    handoffs,
    root: undefined,
    tools,
    specs: tools.toSpecs(),
    deps: options.deps as Deps,
    instructions: options.instructions,
    hooks,
    postHooks: hookList("postToolCall", options.postToolCall),
    modelHooks: modelHooks(options),
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

/** The model-side chains, checked as the tool hooks are; `undefined` when neither has a hook. */
function modelHooks<Deps>(options: AgentLoopOptions<Deps>): ModelHooks<Deps> | undefined {
  const pre = hookList("preModelCall", options.preModelCall);
  const post = hookList("postModelCall", options.postModelCall);
  return pre.length === 0 && post.length === 0 ? undefined : { pre, post };
}

/** The loop's tools with one tool per handoff; a handoff tool named as a tool is a `TypeError`. */
function withHandoffTools<Deps>(
  tools: Toolset<Deps>,
  handoffs: ReadonlyMap<string, ResolvedHandoff<Deps>>,
): Toolset<Deps> {
  for (const name of handoffs.keys()) {
    if (tools.find(name)) {
      throw new TypeError(
        `AgentLoop: the handoff tool "${name}" has the name of a tool of the loop; give the handoff another toolName`,
      );
    }
  }
  return Toolset.from([...tools, ...[...handoffs.values()].map((handoff) => handoff.tool)]);
}
