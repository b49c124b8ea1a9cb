import type { PreToolCallHook, PreToolCallInfo, PreToolCallVerdict } from "../types/hooks.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { kindOf } from "../util/values.js";
import { checkArgs } from "./args.js";

/**
 * The args of a call to tool `T` in the model's form (the schema's input side, defaulted
 * fields present: `InferArgs`): what hooks,
 * the policy, `needsApproval` and approvals see. `execute` gets the schema's output instead.
 */
export type ToolInput<T> = T extends Tool<any, any, infer In> ? In : never;

/** What a hook made by `onTool` sees: a call to its one tool, with the args typed from that tool's schema. */
export interface ToolCallInfo<Deps, In> extends Omit<PreToolCallInfo<Deps>, "args"> {
  args: In;
}

/** A verdict whose replacement `args` are typed from the tool's schema. */
export interface ToolCallVerdict<In> extends Omit<PreToolCallVerdict, "args"> {
  /** Replace the args (validated again against the tool's schema). */
  args?: In | undefined;
}

/** A hook for one tool, as `onTool` takes it. */
export type ToolHook<Deps, In> = (
  call: ToolCallInfo<Deps, In>,
) => void | ToolCallVerdict<In> | Promise<void | ToolCallVerdict<In>>;

/**
 * A pre-call hook for one tool: it runs for calls to `tool` (by name) with `args` typed from
 * the tool's schema, and has no opinion on calls to other tools. Before the hook sees them, the
 * args are checked against this tool's schema, so the type holds even when the loop's tool of
 * that name is another one: args that do not fit reject the run with `HookError`, like any
 * hook that throws.
 *
 * @example
 * const noSecrets = onTool(readFile, ({ args }) =>
 *   args.path.startsWith("/etc/") ? { block: "that file is off limits" } : undefined,
 * );
 * new AgentLoop({ provider, tools: [readFile], preToolCall: [noSecrets] });
 */
export function onTool<Deps, In>(
  tool: Tool<Deps, any, In>,
  hook: ToolHook<Deps, In>,
): PreToolCallHook<Deps> {
  if (typeof tool?.name !== "string" || typeof tool.input?.["~standard"] !== "object") {
    throw new TypeError(
      `onTool(): the first argument must be a tool built with tool(), got ${kindOf(tool)}`,
    );
  }
  if (typeof hook !== "function") {
    throw new TypeError(
      `onTool(${tool.name}): the second argument must be a hook function, got ${kindOf(hook)}`,
    );
  }
  const { name } = tool;
  return (call) => {
    if (call.name !== name) return undefined;
    return andThen(checkArgs(tool, call.args), (checked): MaybePromise<unknown> => {
      if (!checked.ok) {
        throw new TypeError(
          `onTool(${name}): the call's args do not fit the schema of the tool given to onTool (${checked.message}); is the loop's tool "${name}" another tool?`,
        );
      }
      return hook(call as ToolCallInfo<Deps, In>);
    }) as ReturnType<PreToolCallHook<Deps>>;
  };
}

/**
 * Whether `call` is a call to `tool` (by name), narrowing its `args` to the tool's args in the
 * model's form. Takes a `ToolCall` (the policy's `call`), a `PendingApproval` (a paused run's
 * `pending`) or a hook's call. It compares names only: the loop checked the args against the
 * schema of the tool it holds under that name.
 *
 * @example
 * decideToolCall: ({ call }) =>
 *   isCallTo(call, transfer) && call.args.amount > 1000 ? "NEEDS_APPROVAL" : undefined,
 */
export function isCallTo<C extends CallLike, In>(
  call: C,
  tool: Tool<any, any, In>,
): call is C & { args: In } {
  const name = "toolName" in call ? call.toolName : call.name;
  return name === tool.name;
}

/** A call as the policy, a hook or a paused run holds it. */
export type CallLike = { name: string; args: unknown } | { toolName: string; args: unknown };
