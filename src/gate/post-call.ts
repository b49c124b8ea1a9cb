import { describeValue, HookError, messageOf } from "../errors.js";
import { freezeJson } from "../tools/args.js";
import { toJsonOutput } from "../tools/tool-output.js";
import type { PostToolCallHook, PostToolCallInfo, PostToolCallVerdict } from "../types/hooks.js";
import type { ToolCall, ToolContentPart } from "../types/messages.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { askHook } from "./hook-chain.js";
import { blockMessage, readPostCallVerdict } from "./verdict.js";

/** Which post-call hook decided (0-based, as `postToolCall` counts). */
export type PostCallBy = `post:${number}`;

/** A call's result as the model would read it: what the post-call chain judges. */
export interface GuardedResult {
  output: unknown;
  isError: boolean;
  content?: ToolContentPart[] | undefined;
}

/**
 * What the post-call chain made of one result: passed as it was (`by: "default"`), replaced
 * (`by` the last hook that replaced it), blocked, or stopped (the output withheld either way).
 */
export type PostCallOutcome =
  | ({ kind: "pass"; by: "default" } & GuardedResult)
  | ({ kind: "output"; by: PostCallBy } & GuardedResult)
  | { kind: "block"; by: PostCallBy; message: string }
  | { kind: "stop"; by: PostCallBy; reason?: string };

/** One executed call's result to guard, and what the hooks are told of it. */
export interface PostCallRequest<Deps> {
  call: ToolCall;
  result: GuardedResult;
  step: number;
  hooks: readonly PostToolCallHook<Deps>[];
  deps: Deps;
  provider: { name: string; model: string };
}

/** "post-call hook 1 (postToolCall[1])": which hook, counted as the loop's array counts. */
export const postHookName = (index: number) => `post-call hook ${index} (postToolCall[${index}])`;

/**
 * Runs the post-call chain on one executed call's result, in order; each hook sees the output
 * as the hooks before it left it. `stop` wins over `block`, `block` over `output`; `stop` and
 * `block` end the chain. Synchronous while every hook answers synchronously. Throws (or
 * rejects with) `HookError` when a hook throws, answers with something that is not a verdict,
 * or replaces the output with a value JSON cannot carry (or an error's text with a non-string):
 * the output never reaches the model unguarded.
 */
export function postCall<Deps>(request: PostCallRequest<Deps>): MaybePromise<PostCallOutcome> {
  const { output, isError, content } = request.result;
  const current: Current = { output: freezeJson(output), isError, content: freezeJson(content) };
  return dispatch(request, current, 0);
}

/** The result as the hooks so far left it, and the last hook that replaced it. */
interface Current extends GuardedResult {
  replacedBy?: PostCallBy;
}

/** Runs hook `index` and the ones after it (one function, as the pre-call chain). */
function dispatch<Deps>(
  request: PostCallRequest<Deps>,
  current: Current,
  index: number,
): MaybePromise<PostCallOutcome> {
  for (; index < request.hooks.length; index++) {
    const next = index + 1;
    const applied = andThen(runHook(request, index, current), (verdict) =>
      applyVerdict(request, current, index, verdict),
    );
    if (isPromise(applied)) {
      return andThen(applied, (ended) => ended ?? dispatch(request, current, next));
    }
    if (applied) return applied;
  }
  const { output, isError, content, replacedBy } = current;
  const result: GuardedResult = { output, isError };
  if (content !== undefined) result.content = content;
  return replacedBy === undefined
    ? { kind: "pass", by: "default", ...result }
    : { kind: "output", by: replacedBy, ...result };
}

/** Calls a hook and reads its verdict; a throw, a rejection or a malformed verdict becomes `HookError`. */
function runHook<Deps>(
  request: PostCallRequest<Deps>,
  index: number,
  current: Current,
): MaybePromise<PostToolCallVerdict | undefined> {
  const { call } = request;
  const info: PostToolCallInfo<Deps> = {
    name: call.name,
    args: call.args,
    toolCallId: call.id,
    step: request.step,
    provider: request.provider.name,
    model: request.provider.model,
    deps: request.deps,
    output: current.output,
    isError: current.isError,
  };
  if (current.content !== undefined) info.content = current.content;
  return askHook(
    () => request.hooks[index]!(info),
    readPostCallVerdict,
    (error) => hookThrew(index, call, error),
    (problem) => refused(index, call, `${problem} (tool ${call.name})`),
  );
}

function hookThrew(index: number, call: ToolCall, error: unknown): HookError {
  return refused(index, call, `threw on the output of tool ${call.name}: ${messageOf(error)}`, {
    cause: error,
  });
}

function refused(
  index: number,
  call: ToolCall,
  problem: string,
  options?: { cause?: unknown },
): HookError {
  return new HookError(
    `${postHookName(index)} ${problem}; the output did not reach the model`,
    index,
    call.name,
    call.id,
    options,
  );
}

/**
 * Applies one hook's verdict: an outcome when it ends the chain (stop > block), `undefined`
 * when the chain goes on (with its `output`, stored as JSON, in place of the one before).
 */
function applyVerdict<Deps>(
  request: PostCallRequest<Deps>,
  current: Current,
  index: number,
  verdict: PostToolCallVerdict | undefined,
): PostCallOutcome | undefined {
  if (!verdict) return undefined;
  const by: PostCallBy = `post:${index}`;
  const { call } = request;
  if (verdict.stop) {
    const stop: PostCallOutcome = { kind: "stop", by };
    if (verdict.stopReason !== undefined) stop.reason = verdict.stopReason;
    return stop;
  }
  const message = blockMessage(verdict.block, "the output of", call.name);
  if (message !== undefined) return { kind: "block", by, message };
  if (verdict.output === undefined) return undefined;
  if (current.isError) {
    if (typeof verdict.output !== "string") {
      throw refused(
        index,
        call,
        `replaced the error text of tool ${call.name} with a value of type ${describeValue(verdict.output)}; an error result's output is the text the model reads, a string`,
      );
    }
    current.output = verdict.output;
  } else {
    const json = toJsonOutput(verdict.output);
    if (!json.ok) {
      throw refused(
        index,
        call,
        `replaced the output of tool ${call.name} with a value JSON cannot carry: ${json.problem}`,
      );
    }
    current.output = freezeJson(json.output);
    current.content = freezeJson(json.content);
  }
  current.replacedBy = by;
  return undefined;
}
