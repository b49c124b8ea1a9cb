/** What a pre-call hook sees of a call: the args as the hooks before it left them. */
export interface PreToolCallInfo<Deps = unknown> {
  name: string;
  args: unknown;
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
