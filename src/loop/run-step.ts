import type { ToolCallPart } from "../types/messages.js";
import { isPromise } from "../util/maybe-promise.js";
import { callModel } from "./call-model.js";
import { endsRun } from "./ends-run.js";
import { executeCalls } from "./execute-calls.js";
import {
  completeWith,
  outputOfCalls,
  outputOfText,
  throwIfRefused,
  withOutputTool,
} from "./final-answer.js";
import { finishStep, type StepOutcome } from "./finish-step.js";
import { gateCalls } from "./gate-calls.js";
import { limitOfStep } from "./limit-checks.js";
import { type OpenStep, openStep } from "./open-step.js";
import { prepareStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";

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
    const provider = tools.steering?.provider ?? run.options.provider;
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
  const response = await callModel(run, index, tools);
  const step = openStep(run, index, started, tools, response);
  throwIfRefused(run, step);
  const parts = response.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
  if (parts.length === 0) {
    const completed = finishStep(run, step);
    return run.output ? outputOfText(run, step) : completed;
  }
  const gated = gateCalls(run, step, parts, tools);
  const stop = isPromise(gated) ? await gated : gated;
  if (stop) return finishStep(run, step, { stop });
  const succeeded = await executeCalls(run, step, allowed(step));
  if (step.stop) return finishStep(run, step, { stop: step.stop });
  const limit = limitOfStep(run, step);
  const output = outputOfCalls(run, succeeded);
  // The model's final answer completes the run even when a limit stopped other calls of the step.
  if (output) return completeWith(run, step, output, finishStep);
  if (limit) return finishStep(run, step, { limit });
  const ending = endsRun(run, succeeded, tools.callableTools);
  const endedBy = isPromise(ending) ? await ending : ending;
  return finishStep(run, step, { endedBy });
}

/** The step's calls the gate allowed, in call order. */
const allowed = <Deps>(step: OpenStep<Deps>) =>
  step.calls.filter((open) => open.record.verdict === "allow");
