import {
  messageOf,
  OutputValidationError,
  TollgateError,
  ToolRetriesExceededError,
} from "../errors.js";
import { withoutAdvice } from "../tools/args.js";
import type { Tool } from "../tools/tool.js";
import type { OpenCall } from "./call-record.js";
import type { RunContext } from "./run-context.js";

/**
 * Counts a call the gate turned away against its tool's retries (invalid args, or args that
 * `repairToolCall` fixed), or, for a call
 * to a tool that is not callable, against the loop's `maxRetries` for that name; throws
 * `ToolRetriesExceededError` past the limit.
 */
export function countFailure<Deps>(run: RunContext<Deps>, open: OpenCall<Deps>): void {
  const { record } = open;
  if (record.verdict === "unavailable") {
    const calls = (run.unavailableCalls.get(record.toolName) ?? 0) + 1;
    run.unavailableCalls.set(record.toolName, calls);
    const { maxRetries } = run.options;
    if (calls > maxRetries) {
      throw new ToolRetriesExceededError(record.toolName, maxRetries, {
        cause: new TollgateError(record.reason ?? String(record.result?.output)),
        unavailable: true,
      });
    }
  } else if (record.verdict === "invalid") {
    // The error is the developer's: the problem, without the advice the model read with it.
    const problem = record.reason ?? String(record.result?.output);
    failTool(run, open.tool!, new TollgateError(withoutAdvice(problem)));
  } else if (record.repairedFrom !== undefined) {
    // A repair is a retry the model did not have to make: it counts as one.
    const problem = `the args of ${record.toolName} failed parsing or validation (repaired by repairToolCall)`;
    failTool(run, open.tool!, new TollgateError(problem));
  }
}

/** Counts one failure of a tool; throws `ToolRetriesExceededError` past its `maxRetries`. */
export function failTool<Deps>(run: RunContext<Deps>, tool: Tool<Deps>, cause: unknown): void {
  // The final-answer tool's failures are the output's: `OutputValidationError` past the budget.
  if (tool === run.output?.tool) {
    failOutput(run, messageOf(cause));
    return;
  }
  const failures = (run.retries.get(tool.name) ?? 0) + 1;
  run.retries.set(tool.name, failures);
  if (failures > tool.maxRetries)
    throw new ToolRetriesExceededError(tool.name, tool.maxRetries, { cause });
}

/**
 * Counts one failed final answer (under the output's name, as a tool's failures are); throws
 * `OutputValidationError` past the loop's `maxRetries`.
 */
export function failOutput<Deps>(run: RunContext<Deps>, problem: string): void {
  const { name } = run.output!;
  const failures = (run.retries.get(name) ?? 0) + 1;
  run.retries.set(name, failures);
  const { maxRetries } = run.options;
  if (failures > maxRetries) {
    throw new OutputValidationError(
      `the model's final answer failed the output schema more often than the loop's maxRetries (${maxRetries}) allows; the last problem: ${problem}`,
    );
  }
}
