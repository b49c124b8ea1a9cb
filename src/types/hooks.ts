import type { ToolContentPart } from "./messages.js";
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
