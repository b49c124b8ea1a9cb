import type { RunContext } from "../loop/run-context.js";
import type { ToolCall } from "../messages.js";
import type { RunState } from "./run-state.js";
import { RUN_STATE_VERSION } from "./run-state.js";

/**
 * The state of a run as it stands, with the open step (if any) as its last step. Taken at
 * once (nothing awaited), so it is one consistent moment of the run; `sealState` adds the
 * pending list and the signature.
 */
export function snapshot<Deps>(
  run: RunContext<Deps>,
  status: RunState["status"],
  extras: { endedBy?: ToolCall } = {},
): RunState {
  const steps = run.steps.slice();
  const open = run.openStep?.();
  if (open) steps[open.index] = open;
  const state: RunState = {
    version: RUN_STATE_VERSION,
    stateId: crypto.randomUUID(),
    runId: run.runId,
    status,
    messages: run.messages.slice(),
    steps,
    usage: run.usage,
    maxSteps: run.maxSteps,
    retries: Object.fromEntries(run.retries),
    unavailableCalls: Object.fromEntries(run.unavailableCalls),
    executed: run.executed.slice(),
    denied: run.denied.slice(),
  };
  if (extras.endedBy) state.endedBy = extras.endedBy;
  return state;
}
