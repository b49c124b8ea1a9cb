import { HookError, messageOf } from "../errors.js";
import { argsFromValue, checkArgs } from "../tools/args.js";
import type { PreToolCallVerdict } from "../types/hooks.js";
import type { ToolCallPart } from "../types/messages.js";
import type { DecidedBy } from "../types/step-record.js";
import type { Tool } from "../types/tool.js";
import { andThen, isPromise, later, type MaybePromise } from "../util/maybe-promise.js";
import { frozenCall } from "./frozen-call.js";
import type { GateOutcome, GateRequest } from "./gate-types.js";
import { blockMessage, readPreCallVerdict, type VerdictRead } from "./verdict.js";

/** The chain so far: the args as the hooks left them (model form), their parsed form, the last `confirm`. */
export interface Chain {
  args: unknown;
  parsed: unknown;
  confirm?: { value: boolean; by: DecidedBy };
}

/**
 * What runs once every hook let the call through: the gate's `next`, as koa-compose calls it.
 * A function declared once (not a closure per call), so the chain allocates nothing for it.
 */
export type AfterHooks<Deps> = (
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
) => MaybePromise<GateOutcome>;

/**
 * Runs hook `index` and the ones after it, in order, then `next` (one function, koa-compose
 * style). A hook's stop, block or result ends the chain; its args and `confirm` are taken for
 * the hooks after it. Synchronous while every hook answers synchronously.
 */
export function dispatch<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
  next: AfterHooks<Deps>,
): MaybePromise<GateOutcome> {
  for (; index < request.hooks.length; index++) {
    const verdict = runHook(request, index, chain.args);
    const after = index + 1;
    const applied = andThen(verdict, (answer) => applyVerdict(request, tool, chain, index, answer));
    if (isPromise(applied)) {
      return andThen(applied, (ended) => ended ?? dispatch(request, tool, chain, after, next));
    }
    if (applied) return applied;
  }
  return next(request, tool, chain);
}

/**
 * "pre-call hook 1 (preToolCall[1])": which hook, counted as the loop's array counts. Every
 * error about a pre-call hook names it this way, so the user finds the hook in their options.
 */
export const hookName = (index: number) => `pre-call hook ${index} (preToolCall[${index}])`;

/** Calls a hook and reads its verdict; a throw, a rejection or a malformed verdict becomes `HookError`. */
function runHook<Deps>(
  request: GateRequest<Deps>,
  index: number,
  args: unknown,
): MaybePromise<PreToolCallVerdict | undefined> {
  const { part } = request;
  return askHook(
    () =>
      request.hooks[index]!({
        name: part.name,
        args,
        annotations: request.tool!.annotations,
        toolCallId: part.id,
        step: request.step,
        provider: request.provider.name,
        model: request.provider.model,
        deps: request.deps,
      }),
    readPreCallVerdict,
    (error) => hookThrew(index, part, error),
    (problem) =>
      new HookError(
        `${hookName(index)} ${problem} (tool ${part.name}); the call did not run`,
        index,
        part.name,
        part.id,
      ),
  );
}

function hookThrew(index: number, part: ToolCallPart, error: unknown): HookError {
  return new HookError(
    `${hookName(index)} threw on tool ${part.name}: ${messageOf(error)}`,
    index,
    part.name,
    part.id,
    { cause: error },
  );
}

/**
 * Applies one hook's verdict: an outcome when it ends the chain (stop > block > result),
 * `undefined` when the chain goes on (after taking its `args` and `confirm`).
 */
function applyVerdict<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
  verdict: PreToolCallVerdict | undefined,
): MaybePromise<GateOutcome | undefined> {
  if (!verdict) return undefined;
  const by: DecidedBy = `hook:${index}`;
  const { part } = request;
  if (verdict.stop) {
    const call = frozenCall(part.id, part.name, chain.args, part.args);
    const stop: GateOutcome = { kind: "stop", by, call };
    if (verdict.stopReason !== undefined) stop.reason = verdict.stopReason;
    return stop;
  }
  const message = blockMessage(verdict.block, "the call to", tool.name);
  if (message !== undefined) {
    const call = frozenCall(part.id, part.name, chain.args, part.args);
    return { kind: "block", by, call, message };
  }
  if (verdict.result !== undefined) {
    const call = frozenCall(part.id, part.name, chain.args, part.args);
    return { kind: "result", by, call, output: verdict.result };
  }
  if (verdict.confirm !== undefined) chain.confirm = { value: verdict.confirm, by };
  if (verdict.args === undefined) return undefined;
  return rewrite(request, tool, chain, index, verdict.args);
}

/** Takes a hook's rewritten args: read as JSON args, validated again; anything else is `HookError`. */
function rewrite<Deps>(
  request: GateRequest<Deps>,
  tool: Tool<Deps>,
  chain: Chain,
  index: number,
  args: unknown,
): MaybePromise<undefined> {
  const rejected = (problem: string) =>
    new HookError(
      `${hookName(index)} rewrote the args of ${tool.name} into args ${problem}; the call did not run`,
      index,
      tool.name,
      request.part.id,
    );
  const rewritten = argsFromValue(args, request.argsLimits);
  if (!rewritten.ok) throw rejected(`that are not JSON args: ${rewritten.message}`);
  return andThen(checkArgs(tool, rewritten.args), (checked) => {
    if (!checked.ok) throw rejected(`its schema rejects: ${checked.message}`);
    chain.args = checked.args;
    chain.parsed = checked.parsed;
    return undefined;
  });
}

/**
 * Asks a hook (pre- or post-call) and reads its verdict, failing closed: what `ask` throws, a
 * rejection, a getter that throws while the verdict is read, and a malformed verdict all become
 * the chain's error (`threw` for the first three, `malformed` for the last). Synchronous while
 * the hook answers synchronously.
 */
export function askHook<V>(
  ask: () => unknown,
  read: (answer: unknown) => VerdictRead<V>,
  threw: (error: unknown) => Error,
  malformed: (problem: string) => Error,
): MaybePromise<V | undefined> {
  let answer: unknown;
  let isLater: boolean;
  try {
    answer = ask();
    isLater = isPromise(answer); // reads `then`, which a verdict's getter may make throw
  } catch (error) {
    throw threw(error);
  }
  const take = (settled: unknown): V | undefined => {
    let verdict: VerdictRead<V>;
    try {
      verdict = read(settled);
    } catch (error) {
      throw threw(error); // a getter on the verdict threw
    }
    if (verdict.ok) return verdict.verdict;
    throw malformed(verdict.problem);
  };
  if (!isLater) return take(answer);
  return later(answer as PromiseLike<unknown>, take, (error: unknown) => {
    throw threw(error);
  });
}
