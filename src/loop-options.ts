import type { ListenerErrorHandler, LoopListener } from "./events.js";
import type { PreToolCallHook } from "./hooks.js";
import type { ToolSpec } from "./messages.js";
import type { LoopPolicy } from "./policy.js";
import type { ModelSettings, Provider } from "./provider.js";
import type { RunStore } from "./run-store.js";
import type { Tool } from "./tool.js";
import { Toolset } from "./toolset.js";

/** What `new AgentLoop()` takes. Only `provider` is required. */
export interface AgentLoopOptions<Deps = unknown> {
  provider: Provider;
  tools?: Toolset<Deps> | Tool<Deps>[];
  /** Passed to every tool, hook and policy call; a run may give its own. */
  deps?: Deps;
  /** The system prompt. */
  instructions?: string;
  /** Pre-call hooks, run in this order for every call. */
  preToolCall?: PreToolCallHook<Deps>[];
  policy?: LoopPolicy<Deps>;
  /** Model calls per run (default 20); past it the run ends with status "max_steps". */
  maxSteps?: number;
  /** Calls of one step that run at once (default 8); results keep call order. */
  maxParallelToolCalls?: number;
  /** "continue" (default): a throwing tool gives the model an error result. "throw": the run rejects. */
  toolErrors?: "continue" | "throw";
  /** Calls to tools that are not callable, fed back before the run rejects (default 1). */
  maxRetries?: number;
  /** Sampling settings sent with every model request. */
  settings?: ModelSettings;
  /** Where listener errors go (default `console.error`). */
  onListenerError?: ListenerErrorHandler;
  /** Aborts every run of this loop. */
  signal?: AbortSignal;
  onEvent?: LoopListener;
  /**
   * Keeps states across processes: paused states and checkpoints around every tool call are
   * written to it, and `resume()` claims a state there, so it runs once across workers.
   */
  store?: RunStore;
  /** Signs every state written (HMAC-SHA-256); `resume()` then rejects a state changed since. */
  signingKey?: string | Uint8Array;
  /** A call a human refused, asked again with the same args: "auto-deny" (default) or "ask" again. */
  repeatDenied?: "auto-deny" | "ask";
  /** Upgrades states of older versions: `{ [fromVersion]: (state) => stateOfNextVersion }`. */
  stateMigrations?: Record<number, (state: any) => unknown>;
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
  policy: LoopPolicy<Deps>;
  maxSteps: number;
  maxParallelToolCalls: number;
  toolErrors: "continue" | "throw";
  maxRetries: number;
  settings: ModelSettings | undefined;
  signal: AbortSignal | undefined;
  store: RunStore | undefined;
  signingKey: string | Uint8Array | undefined;
  repeatDenied: "auto-deny" | "ask";
  stateMigrations: Record<number, (state: any) => unknown>;
}

/** Checks the options eagerly, with errors that say what to pass instead. */
export function resolveOptions<Deps>(options: AgentLoopOptions<Deps>): ResolvedOptions<Deps> {
  const { provider } = options;
  if (!provider || typeof provider.generate !== "function") {
    throw new TypeError(
      "AgentLoop: `provider` must have a generate() method; build one with defineProvider()",
    );
  }
  const tools =
    options.tools instanceof Toolset ? options.tools : Toolset.from(options.tools ?? []);
  const hooks = options.preToolCall ?? [];
  if (!Array.isArray(hooks) || hooks.some((hook) => typeof hook !== "function")) {
    throw new TypeError("AgentLoop: `preToolCall` must be an array of functions");
  }
  const repeatDenied = options.repeatDenied ?? "auto-deny";
  if (repeatDenied !== "auto-deny" && repeatDenied !== "ask") {
    throw new TypeError('AgentLoop: `repeatDenied` must be "auto-deny" or "ask"');
  }
  const { store, signingKey } = options;
  if (
    store &&
    !(["get", "put", "claim"] as const).every((key) => typeof store[key] === "function")
  ) {
    throw new TypeError("AgentLoop: `store` must have get(), put() and claim() methods");
  }
  if (signingKey !== undefined && signingKey.length === 0) {
    throw new TypeError("AgentLoop: `signingKey` must not be empty");
  }
  const toolErrors = options.toolErrors ?? "continue";
  if (toolErrors !== "continue" && toolErrors !== "throw") {
    throw new TypeError('AgentLoop: `toolErrors` must be "continue" or "throw"');
  }
  return {
    provider,
    tools,
    specs: tools.toSpecs(),
    deps: options.deps as Deps,
    instructions: options.instructions,
    hooks: [...hooks],
    policy: options.policy ?? {},
    maxSteps: wholeNumber("maxSteps", options.maxSteps ?? 20, 1),
    maxParallelToolCalls: wholeNumber("maxParallelToolCalls", options.maxParallelToolCalls ?? 8, 1),
    toolErrors,
    maxRetries: wholeNumber("maxRetries", options.maxRetries ?? 1, 0),
    settings: options.settings,
    signal: options.signal,
    store,
    signingKey,
    repeatDenied,
    stateMigrations: { ...options.stateMigrations },
  };
}

/** Checks a whole-number option. */
export function wholeNumber(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`AgentLoop: \`${name}\` must be a whole number >= ${min}, got ${value}`);
  }
  return value;
}
