import { ModelRefusalError, PolicyError } from "../errors.js";
import { readFinalText } from "../output/final-answer.js";
import { refusalOf } from "../output/output-validator.js";
import type { ToolCall, ToolCallPart } from "../types/messages.js";
import type { Tool } from "../types/tool.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { textOf } from "../util/message-text.js";
import { callPolicy, readBoolean } from "../util/policy-call.js";
import { callModel } from "./call-model.js";
import { executeCalls, type Succeeded } from "./execute-calls.js";
import { gateCalls } from "./gate-calls.js";
import type { ModelGuard } from "./model-hooks.js";
import { prepareStep, type ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { answerRefused, failOutput } from "./run-record.js";
import { finishStep, limitOfStep, type OpenStep, openStep, type StepOutcome } from "./step.js";

/**
 * One step, as the contract reads: prepare the step's tools → call the model (a refusal ends a
 * run with structured output) → gate every call (in call order) → execute the allowed ones (a
 * usage limit may stop them, and then ends the run) → ask whether a result ends the run →
 * finish the step. A resumed run's first step is `resumeStep` instead.
 */
export async function runStep<Deps>(run: RunContext<Deps>): Promise<StepOutcome> {
  const index = run.steps.length;
  const started = performance.now();
  const prepared = prepareStep(run);
  const tools = withOutputTool(run, isPromise(prepared) ? await prepared : prepared);
  if (run.listening()) {
    const { shownNames, callableNames } = tools;
    const provider = tools.steering?.provider ?? run.config.options.provider;
    run.emit({
      type: "step-start",
      runId: run.runId,
      step: index,
      tools: shownNames as string[],
      callable: callableNames as string[],
      provider: provider.name,
      model: provider.model,
    });
  }
  const guard = modelGuard(run);
  const response = await callModel(run, index, tools, guard);
  const step = openStep(run, index, started, tools, response, guard?.verdicts);
  if (guard?.stop) return stoppedByModelHook(run, step, guard.stop);
  throwIfRefused(run, step);
  const parts = response.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
  if (parts.length === 0) {
    const completed = finishStep(run, step);
    return run.config.output ? outputOfText(run, step) : completed;
  }
  const gated = gateCalls(run, step, parts, tools);
  const stop = isPromise(gated) ? await gated : gated;
  if (stop) return finishStep(run, step, { stop });
  const succeeded = await executeCalls(run, step, allowed(step));
  return afterExecution(run, step, succeeded);
}

/**
 * The tail every step shares, a fresh one and a resumed run's first, once the calls that may
 * run have executed (`executeCalls`): a post-call hook's stop ends the run → the usage limit
 * that stopped a call (calls it left get "not run") → the model's final answer, which
 * completes the run even when a limit stopped other calls of the step → the limit → `endsRun`
 * (unless a call of the step ended the run before it paused: `resumed.endedBy`) → finish the
 * step. Synchronous unless `endsRun` answers later.
 */
export function afterExecution<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  succeeded: readonly Succeeded<Deps>[],
  resumed?: { endedBy?: ToolCall | undefined },
): MaybePromise<StepOutcome> {
  if (step.stop) return finishStep(run, step, { stop: step.stop });
  const limit = limitOfStep(run, step);
  // A resumed step's final answer may have run before it paused: its stored result holds it.
  const output = outputOfCalls(run, succeeded) ?? (resumed ? outputOfStep(run, step) : undefined);
  if (output) return completeWith(run, step, output, finishStep);
  if (limit) return finishStep(run, step, { limit });
  const ending = resumed?.endedBy ?? endsRun(run, succeeded, step.tools.callableTools);
  if (!isPromise(ending)) return finishStep(run, step, { endedBy: ending });
  return ending.then((endedBy) => finishStep(run, step, { endedBy }));
}

/**
 * A model-side hook stopped the run (`preModelCall`: nothing was sent; `postModelCall`: the
 * response was withheld, before any of its calls was gated): the step closes with no calls and
 * the run ends, status "stopped".
 */
function stoppedByModelHook<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  stop: { reason?: string },
): StepOutcome {
  finishStep(run, step);
  return stop.reason === undefined ? { kind: "stopped" } : { kind: "stopped", reason: stop.reason };
}

/** The step's calls the gate allowed, in call order. */
const allowed = <Deps>(step: OpenStep<Deps>) =>
  step.calls.filter((open) => open.record.verdict === "allow");

/**
 * Asks the policy's `endsRun` about each call that succeeded, in call order, and returns the
 * first call it says ends the run (none without `endsRun`).
 */
export function endsRun<Deps>(
  run: RunContext<Deps>,
  succeeded: readonly Succeeded<Deps>[],
  tools: readonly Tool<Deps>[],
  from = 0,
): MaybePromise<ToolCall | undefined> {
  const { policy } = run.config.options;
  const ask = policy.endsRun;
  if (!ask) return undefined;
  for (let index = from; index < succeeded.length; index++) {
    const { open, raw } = succeeded[index]!;
    const call = open.call!;
    const ends = callPolicy(
      "endsRun",
      call.name,
      () => ask.call(policy, { call, output: raw, tools: [...tools] }),
      readBoolean,
    );
    if (ends === true) return call;
    if (ends !== false) {
      return andThen(ends, (ended) => {
        run.abort.throwIfAborted();
        return ended ? call : endsRun(run, succeeded, tools, index + 1);
      });
    }
  }
  return undefined;
}

/**
 * The step's tools with the final-answer tool added ("tool" mode): offered in every step,
 * whatever `prepareStep` chose, and `toolChoice` "required" unless the step set one, so the
 * model answers by calling a tool. A step tool of the same name is a `PolicyError`.
 */
export function withOutputTool<Deps>(
  run: RunContext<Deps>,
  tools: ToolsOfStep<Deps>,
): ToolsOfStep<Deps> {
  const outputTool = run.config.output?.tool;
  if (!outputTool) return tools;
  const { name } = outputTool;
  if (tools.shownNames.includes(name)) {
    throw new PolicyError(
      `prepareStep offered a tool named "${name}", the name of the final-answer tool; give output.name another name`,
      "prepareStep",
      name,
    );
  }
  const { description, inputSchema } = outputTool;
  const find = tools.find;
  return {
    shown: [...tools.shown, outputTool],
    shownNames: [...tools.shownNames, name],
    specs: [...tools.specs, { name, description, inputSchema }],
    find: (called) => (called === name ? outputTool : find(called)),
    callableNames: [...tools.callableNames, name],
    callableTools: [...tools.callableTools, outputTool],
    toolChoice: tools.toolChoice ?? "required",
  };
}

/** The final answer among a step's calls that ran ("tool" mode): the first call of the final-answer tool. */
export function outputOfCalls<Deps>(
  run: RunContext<Deps>,
  succeeded: readonly Succeeded<Deps>[],
): { value: unknown } | undefined {
  const outputTool = run.config.output?.tool;
  if (!outputTool) return undefined;
  const final = succeeded.find(({ open }) => open.tool === outputTool);
  return final && { value: final.raw };
}

/**
 * With structured output, a refused response (finish reason `content-filter`: a content
 * filter, or the provider's refusal field) is not an answer: the run ends with
 * `ModelRefusalError`, carrying what the model said, without a re-prompt and before any of the
 * response's calls is gated. Without structured output a refusal is the run's text, as it is.
 */
export function throwIfRefused<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>): void {
  const { finishReason, parts } = step.response;
  if (!run.config.output || finishReason !== "content-filter") return;
  const said = textOf({ role: "assistant", parts });
  throw new ModelRefusalError(finishReason, step.index, said === "" ? undefined : said);
}

/**
 * A step that ended without tool calls, with structured output: the text is the final answer
 * ("native", "prompted"), validated by the schema, then by `output.validate` if there is one.
 * A valid one completes the run with it; anything else is fed back to the model in a user
 * message (with the failing paths, or the validator's message) and the run goes on, counted
 * against the loop's `maxRetries`; past it, `OutputValidationError`.
 */
export function outputOfText<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): MaybePromise<StepOutcome> {
  const { output } = run.config;
  if (!output) return { kind: "completed" };
  const text = textOf({ role: "assistant", parts: step.response.parts });
  const refuse = (problem: string): StepOutcome => {
    failOutput(run, problem);
    const end = /[.!?]$/.test(problem) ? "" : ".";
    answerRefused(run, {
      role: "user",
      content: `Your final answer was not accepted: ${problem}${end}`,
    });
    return { kind: "continue" };
  };
  return andThen(readFinalText(output, text), (answer): MaybePromise<StepOutcome> => {
    run.abort.throwIfAborted();
    if (!answer.ok) return refuse(answer.problem);
    const completed: StepOutcome = { kind: "completed", output: { value: answer.output } };
    const { validator } = output;
    if (!validator) return completed;
    return andThen(refusalOf(validator, answer.output, run, step.index), (refusal) => {
      run.abort.throwIfAborted();
      return refusal === undefined ? completed : refuse(refusal);
    });
  });
}

/**
 * The final answer of a resumed step ("tool" mode): a call of the final-answer tool that ran
 * before the step paused, or on resume, as its stored result holds it.
 */
export function outputOfStep<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): { value: unknown } | undefined {
  const name = run.config.output?.tool?.name;
  if (name === undefined) return undefined;
  const final = step.calls.find(
    ({ record }) =>
      record.toolName === name && record.verdict === "allow" && record.result?.isError === false,
  );
  return final && { value: final.record.result!.output };
}

/** Finishes a step whose final-answer call ran: the run completes with it, unless calls still wait. */
export function completeWith<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  output: { value: unknown },
  finish: (run: RunContext<Deps>, step: OpenStep<Deps>) => StepOutcome,
): StepOutcome {
  const outcome = finish(run, step);
  return outcome.kind === "continue" ? { kind: "completed", output } : outcome;
}

/** A fresh guard for one step, or `undefined` for a loop without model hooks (nothing allocated). */
export function modelGuard<Deps>(run: RunContext<Deps>): ModelGuard | undefined {
  const hooks = run.config.options.modelHooks;
  if (!hooks) return undefined;
  return hooks.post.length > 0 ? { verdicts: [], held: [] } : { verdicts: [] };
}
