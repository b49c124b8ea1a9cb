import type { Message, ToolContentPart, Usage } from "./messages.js";
import type { FinishReason } from "./provider.js";
import type { ToolAnnotations } from "./tool-annotations.js";

/** What a pre-call hook sees of a call: the args as the hooks before it left them. */
export interface PreToolCallInfo<Deps = unknown> {
  name: string;
  args: unknown;
  /** The tool's annotations (MCP's hints: `readOnlyHint`, `destructiveHint`, …), `{}` when none. */
  annotations: ToolAnnotations;
  toolCallId: string;
  step: number;
  provider: string;
  model: string;
  deps: Deps;
}

/**
 * A hook's verdict; a key set to `undefined` counts as not given. In one verdict `stop` wins
 * over `block`, `block` over `result`; those three end the chain. `args` and `confirm` pass on
 * to the next hook.
 */
export interface PreToolCallVerdict {
  /** End the run now (status "stopped"). */
  stop?: boolean | undefined;
  /** Why, for the user. */
  stopReason?: string | undefined;
  /** Do not run; the model gets an error result (this text, if given). */
  block?: boolean | string | undefined;
  /** true: ask for approval; false: none needed. A policy DENY still wins. */
  confirm?: boolean | undefined;
  /** Replace the args (validated again against the tool's schema). */
  args?: unknown;
  /** Do not run; the model gets this as a normal result. */
  result?: unknown;
}

/**
 * A pre-call hook: runs for every call that reaches the gate, in the order given to the loop.
 * For a hook on one tool, with `args` typed from its schema, use `onTool(tool, hook)`.
 */
export type PreToolCallHook<Deps = unknown> = (
  call: PreToolCallInfo<Deps>,
) => void | PreToolCallVerdict | Promise<void | PreToolCallVerdict>;

/**
 * What a post-call hook sees of a call that ran: the call with its final args, and its result
 * as the model would read it (the output as the hooks before this one left it).
 */
export interface PostToolCallInfo<Deps = unknown> {
  name: string;
  /** The final args in the model's form (what the gate allowed, or a human approved). */
  args: unknown;
  toolCallId: string;
  step: number;
  provider: string;
  model: string;
  deps: Deps;
  /** The output as stored (JSON data, frozen); for an error result, its text. */
  output: unknown;
  /** The tool failed (threw, timed out, returned a value JSON cannot carry): `output` is the error's text. */
  isError: boolean;
  /** The image and text parts of an output made with `toolContent(...)`. */
  content?: readonly ToolContentPart[] | undefined;
}

/**
 * A post-call hook's verdict; a key set to `undefined` counts as not given. In one verdict
 * `stop` wins over `block`, `block` over `output`; `stop` and `block` end the chain, `output`
 * passes on to the next hook.
 */
export interface PostToolCallVerdict {
  /** Replace the output the model reads (JSON data; a string for an error result). */
  output?: unknown;
  /** Withhold the output; the model gets an error result (this text, if given). */
  block?: boolean | string | undefined;
  /** Withhold the output and end the run after this step (status "stopped"). */
  stop?: boolean | undefined;
  /** Why, for the user. */
  stopReason?: string | undefined;
}

/**
 * A post-call hook: runs on every executed call's result, in the order given to the loop,
 * before the model (or a checkpoint, or an event) sees it.
 */
export type PostToolCallHook<Deps = unknown> = (
  call: PostToolCallInfo<Deps>,
) => void | PostToolCallVerdict | Promise<void | PostToolCallVerdict>;

/**
 * What a pre-model hook sees of one model request, frozen: the messages about to be sent (after
 * `prepareStep`'s steering, as the hooks before this one left them), the step's system prompt,
 * the names of the tools shown, and the run's deps.
 */
export interface PreModelCallInfo<Deps = unknown> {
  runId: string;
  step: number;
  provider: string;
  model: string;
  /** What is about to be sent (frozen). Returning `messages` replaces it for this request only. */
  messages: readonly Message[];
  /** The step's system prompt, when it has one. */
  instructions: string | undefined;
  /** The names of the tools shown to the model in this step. */
  tools: readonly string[];
  deps: Deps;
}

/**
 * A pre-model hook's verdict; a key set to `undefined` counts as not given. In one verdict
 * `stop` wins over `block`, `block` over `messages`; `stop` and `block` end the chain,
 * `messages` passes on to the next hook.
 */
export interface PreModelCallVerdict {
  /**
   * Send these instead (redaction): checked as `prepareStep`'s messages are. Only this request
   * changes: the run's transcript keeps its messages, and the hooks run again on the next one.
   */
  messages?: readonly Message[] | undefined;
  /** The request never reaches the provider: the run rejects with `ModelCallBlockedError` (this text as its reason, if given). */
  block?: boolean | string | undefined;
  /** The request is not sent and the run ends now (status "stopped"). */
  stop?: boolean | undefined;
  /** Why, for the user. */
  stopReason?: string | undefined;
}

/**
 * A pre-model hook: runs on every model request, in the order given to the loop, before the
 * request reaches the provider (OpenAI Agents' input guardrails, the Claude Agent SDK's
 * `UserPromptSubmit`).
 */
export type PreModelCallHook<Deps = unknown> = (
  request: PreModelCallInfo<Deps>,
) => void | PreModelCallVerdict | Promise<void | PreModelCallVerdict>;

/** A model response as a post-model hook reads it. */
export interface ModelResponseView {
  /** The response's text (its text parts joined), as the hooks before this one left it. */
  text: string;
  /** The tool calls the model asked for, in order; `args` is the JSON text as the model sent it (the gate has not parsed it yet). */
  toolCalls: readonly { id: string; name: string; args: string }[];
  finishReason: FinishReason;
  usage: Usage;
}

/**
 * What a post-model hook sees of one model response, frozen, before the loop acts on it: before
 * any of its tool calls is gated, before structured output reads it, before it joins the
 * transcript or its deltas reach listeners.
 */
export interface PostModelCallInfo<Deps = unknown> {
  runId: string;
  step: number;
  provider: string;
  model: string;
  response: ModelResponseView;
  deps: Deps;
}

/**
 * A post-model hook's verdict; a key set to `undefined` counts as not given. In one verdict
 * `stop` wins over `block`, `block` over `text`; `stop` and `block` end the chain, `text`
 * passes on to the next hook.
 */
export interface PostModelCallVerdict {
  /** Replace the response's text (redaction); its tool calls stay. */
  text?: string | undefined;
  /** Nothing of the response reaches the transcript or the tools: the run rejects with `ModelCallBlockedError`. */
  block?: boolean | string | undefined;
  /** The response is withheld and the run ends now (status "stopped"), before any of its calls is gated. */
  stop?: boolean | undefined;
  /** Why, for the user. */
  stopReason?: string | undefined;
}

/** A post-model hook: runs on every model response, in the order given to the loop. */
export type PostModelCallHook<Deps = unknown> = (
  response: PostModelCallInfo<Deps>,
) => void | PostModelCallVerdict | Promise<void | PostModelCallVerdict>;
