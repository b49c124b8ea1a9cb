import type { Tool, ToolContext } from "../tools/tool.js";
import type { RunContext } from "./run-context.js";

/**
 * The context a call runs with (and that its tool's `needsApproval` gets): built in this one
 * place, from the run and the call; `signal` is the call's own (with a timeout), else the run's.
 */
export function toolContext<Deps>(
  run: RunContext<Deps>,
  tool: Tool<Deps>,
  call: { id: string; rawArgs: string },
  step: number,
  signal?: AbortSignal,
): ToolContext<Deps> {
  return {
    deps: run.deps,
    toolCallId: call.id,
    toolName: tool.name,
    retry: run.retries.get(tool.name) ?? 0,
    maxRetries: tool.maxRetries,
    step,
    // A data property, not a getter: an object literal with a getter costs about 0.4 µs to make.
    signal: signal ?? run.abort.signal,
    rawArgs: call.rawArgs,
  };
}
