import type { Message, ToolCall, Usage } from "./messages.js";
import type { RunStatus, StepRecord } from "./run-result.js";

/** The version of `RunState` this build writes and reads. */
export const RUN_STATE_VERSION = 1;

/**
 * Everything needed to continue a run, as plain JSON. A paused run's last step record holds
 * its calls: settled ones with their results, pending ones without.
 */
export interface RunState {
  version: number;
  /** Unique per state: a state can be resumed once. */
  stateId: string;
  runId: string;
  status: RunStatus;
  messages: Message[];
  steps: StepRecord[];
  usage: Usage;
  maxSteps: number;
  /** Failures so far per tool name. */
  retries: Record<string, number>;
  /** Calls to tools that were not callable so far. */
  unavailableCalls: number;
  /** Names of tools that executed successfully, in order. */
  executed: string[];
  /** A paused step's call whose result ends the run once the pending calls are settled. */
  endedBy?: ToolCall;
}
