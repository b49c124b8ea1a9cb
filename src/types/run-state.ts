import type { CallCounts, UsageLimits } from "./limits.js";
import type { Message, ToolCall, Usage } from "./messages.js";
import type { ExternalCall, PendingApproval, StepRecord } from "./step-record.js";

/** How a run ended. */
export type RunStatus =
  | "completed"
  | "stopped"
  | "ended_by_tool"
  | "needs_approval"
  | "needs_results"
  | "max_steps"
  | "limit_reached"
  | "stopped_by_condition";

/** A call a human refused in this run; the same call asked again is refused without asking. */
export interface DeniedCall {
  toolName: string;
  /** Canonical JSON of the args that were refused. */
  args: string;
  reason?: string;
}

/**
 * A human's decision remembered for the rest of the run (`remember: "tool"`): every later call
 * of the tool that would wait for approval runs (`approve: true`), or every later call of it is
 * refused without asking (`approve: false`).
 */
export interface RememberedDecision {
  toolName: string;
  approve: boolean;
  reason?: string;
}

/**
 * Everything needed to continue a run, as plain JSON (schema version 3).
 *
 * - `status` is how the run stood when the state was written: `"needs_approval"` or
 *   `"needs_results"` (paused), `"running"` (a checkpoint written by a `RunStore` while tools
 *   ran), or a final status. An `"allow"` call with `external: true` and no result waits for
 *   its client-side tool's result.
 * - The last entry of `steps` is the open step of a paused or running state: calls with a
 *   `result` are settled; a `"needs-approval"` call without one waits for a decision; an
 *   `"allow"` call without one had not started, or had started (`started: true`) when the
 *   checkpoint was written. `messages` then end with that step's assistant message.
 * - A finished step's results are stored once, in the tool message it wrote: its record names
 *   that message (`toolMessage`, an index into `messages`) and its calls carry no `result`.
 *   `RunResult.steps` has them; so does the run a state resumes.
 * - `pending` lists the calls waiting for a decision, each with the digest a decision may
 *   carry to prove it was made for exactly that call in exactly this state.
 * - `signature` (present when the loop has a `signingKey`) is an HMAC-SHA-256 over the
 *   canonical JSON of every other field.
 */
export interface RunState {
  version: number;
  /** Unique per state: a state can be resumed once. */
  stateId: string;
  runId: string;
  status: RunStatus | "running";
  messages: Message[];
  steps: StoredStep[];
  usage: Usage;
  maxSteps: number;
  /** Failures so far per tool name. */
  retries: Record<string, number>;
  /** Calls to tools that were not callable so far, per tool name. */
  unavailableCalls: Record<string, number>;
  /** Names of tools that executed successfully, in order. */
  executed: string[];
  /** Calls refused by a human in this run. */
  denied: DeniedCall[];
  /** Decisions a human asked to remember for the rest of the run, one per tool. Absent when none. */
  remembered?: RememberedDecision[];
  /** The run's usage limits (the loop's, with the run's own over them). Absent in older states. */
  limits?: UsageLimits;
  /** Model calls and tool executions so far, counted against `limits`. Absent in older states. */
  callCounts?: CallCounts;
  pending?: PendingApproval[];
  /** The open step's client-side calls waiting for their results, each with its digest. */
  external?: ExternalCall[];
  /** A paused step's call whose result ends the run once the pending calls are settled. */
  endedBy?: ToolCall;
  /**
   * A sub-agent's run (`loop.asTool`): the run and call that started it. Such a state lives
   * inside its parent's and resumes only through the parent's `resume()`.
   */
  parent?: SubRunParent;
  /**
   * The agent holding the run (its loop's `name`), when it has one: after a handoff, the
   * target. A resume continues with that agent; the signature and digests cover it.
   */
  agent?: string;
  signature?: string;
}

/** The run and the call that started a sub-run. */
export interface SubRunParent {
  runId: string;
  toolCallId: string;
}

/**
 * A step record as a state stores it. A finished step's results are in the tool message it
 * wrote, so the record names that message (`toolMessage`, its index in the state's `messages`)
 * and its calls carry no `result`: a tool's output is stored once, not twice.
 */
export type StoredStep = StepRecord & { toolMessage?: number };
