import type { Message, ToolSpec } from "./messages.js";
import type {
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ProviderCallOptions,
} from "./provider.js";
import type { Tool } from "./tool.js";

/**
 * What `repairToolCall` gets: a call whose args failed parsing or validation (the model's
 * raw text), the problem, the tool it was meant for, the step, and the step's request as the
 * model got it (messages, instructions, tools, provider), so a repair can ask a model to fix the
 * call (the AI SDK's re-ask strategy). Frozen: a repair reads the run, it cannot change it.
 *
 * @example
 * repairToolCall: async ({ call, error, messages, instructions, tools, provider }) => {
 *   const { parts } = await provider.generate({ system: instructions, tools, messages: [
 *     ...messages,
 *     { role: "user", content: `Your call of ${call.name} failed: ${error}. Call it again.` },
 *   ] });
 *   const again = parts.find((part) => part.type === "tool-call" && part.name === call.name);
 *   return again?.type === "tool-call" ? JSON.parse(again.args) : undefined;
 * }
 */
export interface RepairInfo<Deps = unknown> {
  readonly call: { readonly id: string; readonly name: string; readonly rawArgs: string };
  /** Why the args were turned away (JSON, a limit, or the schema's issues). */
  readonly error: string;
  readonly tool: Tool<Deps>;
  /** The 0-based step of the run whose model asked for the call. */
  readonly step: number;
  /**
   * The messages of the step's request as the model got them (after `prepareStep`): frozen
   * copies, made when first read (a repair that does not read them costs no copy).
   */
  readonly messages: readonly Message[];
  /** The step's system instructions as sent (after `prepareStep`), when it had any. */
  readonly instructions: string | undefined;
  /** The step's tools as the model saw them (name, description, JSON Schema): frozen copies, made when first read. */
  readonly tools: readonly ToolSpec[];
  /** The JSON Schema of the failed call's tool (its entry of `tools`). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /**
   * The provider that made the call (the step's, after `prepareStep`), to ask a model: its
   * `generate` (and `stream`, when it has one) bound to it. A call through it is the repair's,
   * not the run's: it is not in the run's usage, limits, steps or events, and no hook sees it.
   */
  readonly provider: RepairProvider;
  /** The run's deps. */
  readonly deps: Deps;
  readonly runId: string;
  /** Aborts with the run; the default signal of `provider`'s calls. */
  readonly signal: AbortSignal;
}

/**
 * The step's provider as a repair gets it (frozen): its name and model, and its calls bound to
 * it. Options left out default to the run's signal.
 */
export interface RepairProvider {
  readonly name: string;
  readonly model: string;
  generate(request: ModelRequest, options?: ProviderCallOptions): Promise<ModelResponse>;
  stream?(request: ModelRequest, options?: ProviderCallOptions): AsyncIterable<ModelStreamPart>;
}

/**
 * Fixes the args of a call that failed parsing or validation: returns the fixed args as JSON
 * data in the model's form (validated again, then gated like the model's own), or `undefined`
 * to leave the call invalid. Counted like a retry; a throw or args JSON cannot carry reject
 * the run with `PolicyError`.
 */
export type RepairToolCall<Deps = unknown> = (info: RepairInfo<Deps>) => unknown;

/**
 * The results whose text `formatToolError` controls: a hook's block, a policy's (or hook's)
 * denial, invalid args, a tool that is not callable, and a human's refusal (also a refusal
 * remembered from earlier in the run) — calls that did not run — and `"withheld"`: a call that
 * ran, whose output a post-call hook blocked.
 */
export type ToolErrorKind =
  | "blocked"
  | "denied"
  | "invalid"
  | "unavailable"
  | "refused"
  | "withheld";

/** What `formatToolError` gets: `message` is the text the model would read by default. */
export interface ToolErrorInfo {
  kind: ToolErrorKind;
  toolName: string;
  message: string;
  /** The reason the record keeps (the hook's block, the policy's or the human's reason). */
  reason?: string;
}

/**
 * Writes the text the model reads for a call that did not run; must return a string
 * (anything else, or a throw, rejects the run with `PolicyError`). Records and events keep
 * the reason as it was.
 */
export type FormatToolError = (info: ToolErrorInfo) => string;
