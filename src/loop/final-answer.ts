import { ModelRefusalError, PolicyError } from "../errors.js";
import { readFinalText } from "../output/final-answer.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { textOf } from "../util/message-text.js";
import type { Succeeded } from "./execute-calls.js";
import type { StepOutcome } from "./finish-step.js";
import type { OpenStep } from "./open-step.js";
import type { ToolsOfStep } from "./prepare-step.js";
import { failOutput } from "./retries.js";
import type { RunContext } from "./run-context.js";

/**
 * The step's tools with the final-answer tool added ("tool" mode): offered in every step,
 * whatever `prepareStep` chose, and `toolChoice` "required" unless the step set one, so the
 * model answers by calling a tool. A step tool of the same name is a `PolicyError`.
 */
export function withOutputTool<Deps>(
  run: RunContext<Deps>,
  tools: ToolsOfStep<Deps>,
): ToolsOfStep<Deps> {
  const outputTool = run.output?.tool;
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
  const outputTool = run.output?.tool;
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
  if (!run.output || finishReason !== "content-filter") return;
  const said = textOf({ role: "assistant", parts });
  throw new ModelRefusalError(finishReason, step.index, said === "" ? undefined : said);
}

/**
 * A step that ended without tool calls, with structured output: the text is the final answer
 * ("native", "prompted"), validated. A valid one completes the run with it; anything else is
 * fed back to the model in a user message (with the failing paths) and the run goes on,
 * counted against the loop's `maxRetries`; past it, `OutputValidationError`.
 */
export function outputOfText<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
): MaybePromise<StepOutcome> {
  const { output } = run;
  if (!output) return { kind: "completed" };
  const text = textOf({ role: "assistant", parts: step.response.parts });
  return andThen(readFinalText(output, text), (answer): StepOutcome => {
    run.abort.throwIfAborted();
    if (answer.ok) return { kind: "completed", output: { value: answer.output } };
    failOutput(run, answer.problem);
    run.messages.push({
      role: "user",
      content: `Your final answer was not accepted: ${answer.problem}.`,
    });
    return { kind: "continue" };
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
  const name = run.output?.tool?.name;
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
