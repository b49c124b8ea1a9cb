import type { Usage } from "../types/messages.js";
import type { LimitName, ReachedLimit } from "../util/usage-limits.js";
import { notRun, type OpenCall } from "./call-record.js";
import type { OpenStep } from "./open-step.js";
import type { RunContext } from "./run-context.js";
import { resultEvents } from "./step-events.js";

/** A token limit: both a limit's name and a count of `Usage`. */
type TokenLimit = LimitName & keyof Usage;

/** The token limits, checked before each model call against the run's `usage`. */
const TOKEN_LIMITS: readonly TokenLimit[] = ["inputTokens", "outputTokens", "totalTokens"];

/**
 * Before a model call: the limit the call would go past (`modelCalls` made, or a token count
 * that has reached its limit or that the provider left `unknown`: fail closed), else
 * `undefined`, and the call is counted.
 */
export function takeModelCall<Deps>(run: RunContext<Deps>): ReachedLimit | undefined {
  const { limits, callCounts, usage } = run;
  const calls = limits.modelCalls;
  if (calls !== undefined && callCounts.modelCalls >= calls) {
    return { name: "modelCalls", value: calls, used: callCounts.modelCalls };
  }
  for (const name of TOKEN_LIMITS) {
    const value = limits[name];
    if (value === undefined) continue;
    if (usage[name] >= value) return { name, value, used: usage[name] };
    if (usage.unknown) return { name, value, used: usage[name], unknown: true };
  }
  callCounts.modelCalls++;
  return undefined;
}

/**
 * Before a tool execution: the `toolCalls` limit when it is used up, else `undefined`, and the
 * execution is counted. The final-answer tool of structured output ("tool" mode) is the model's
 * answer, not a tool execution: it is neither counted nor stopped.
 */
export function takeToolCall<Deps>(
  run: RunContext<Deps>,
  open: OpenCall<Deps>,
): ReachedLimit | undefined {
  if (open.tool !== undefined && open.tool === run.output?.tool) return undefined;
  const reached = toolCallsUsedUp(run);
  if (!reached) run.callCounts.toolCalls++;
  return reached;
}

function toolCallsUsedUp<Deps>(run: RunContext<Deps>): ReachedLimit | undefined {
  const value = run.limits.toolCalls;
  const used = run.callCounts.toolCalls;
  return value !== undefined && used >= value ? { name: "toolCalls", value, used } : undefined;
}

/** The result text of a call a limit stopped: "not run: limit reached (toolCalls 5)". */
export function notRunByLimit<Deps>(open: OpenCall<Deps>, limit: ReachedLimit): void {
  notRun(open, `not run: limit reached (${limit.name} ${limit.value})`);
}

/**
 * After a step's executions: the limit that ends the run with this step, if any. That is the
 * limit that stopped one of its calls, or, when calls wait for approval and no tool may run
 * any more, `toolCalls` (an approval could not let them run; a client-side call waiting for its
 * result was counted when it was allowed). The step's calls still without
 * a result then get "not run: limit reached", so every call has its one result.
 */
export function limitOfStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): ReachedLimit | undefined {
  const waiting = step.calls.filter((open) => !open.record.result);
  // A client-side call that waits for its result was counted already; a call waiting for approval was not.
  const unapproved = waiting.some((open) => !open.record.external);
  const limit = step.limit ?? (unapproved ? toolCallsUsedUp(run) : undefined);
  if (!limit) return undefined;
  for (const open of waiting) notRunByLimit(open, limit);
  resultEvents(run, step.index, waiting);
  return limit;
}
