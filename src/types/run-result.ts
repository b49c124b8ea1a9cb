import type { ReachedLimit } from "./limits.js";
import type { Message, ToolCall, Usage } from "./messages.js";
import type { ModelResponse } from "./provider.js";
import type { RunState } from "./run-state.js";
import type { ExternalCall, PendingApproval, StepRecord } from "./step-record.js";
import type { StoppedBy } from "./stop-conditions.js";

/** What every `RunResult` holds, whatever its status. */
export interface RunResultBase {
  /** The last assistant message's text ("" if none). */
  text: string;
  /** The whole transcript, provider-neutral. */
  messages: Message[];
  steps: StepRecord[];
  usage: Usage;
  finishReason: ModelResponse["finishReason"];
  /**
   * Plain JSON: store it anywhere and `resume()` a paused run from it. A finished run with no
   * store, signing key or listener takes it when first read (as it ended: what the caller does to the
   * result first does not change it); until then it is an accessor, which `JSON.stringify`,
   * a spread and `structuredClone` read.
   */
  state: RunState;
  /**
   * Client-side tools' calls waiting for their results (`needs_results`, and `needs_approval`
   * when approvals and results wait in the same step): supply each on `resume()`.
   */
  external?: ExternalCall[] | undefined;
  /** The agent holding the run when it ended (its loop's `name`), when it has one: after a handoff, the target. */
  agent?: string | undefined;
}

/** Every ending of a run, each status with its own fields; `RunResult` adds `output`. */
export type RunEnding =
  | (RunResultBase & {
      /** The model answered without tool calls, or the steps ran out (`maxSteps`). */
      status: "completed" | "max_steps";
      stopReason?: undefined;
      endedBy?: undefined;
      pending?: undefined;
      limit?: undefined;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      status: "stopped";
      /** Why a hook stopped the run, when it said. */
      stopReason?: string;
      endedBy?: undefined;
      pending?: undefined;
      limit?: undefined;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      status: "ended_by_tool";
      stopReason?: undefined;
      /** The call whose result ended the run. */
      endedBy: ToolCall;
      pending?: undefined;
      limit?: undefined;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      status: "needs_approval";
      stopReason?: undefined;
      endedBy?: undefined;
      /** Calls waiting for approval: decide each, then `resume()` with `state`. */
      pending: PendingApproval[];
      limit?: undefined;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      /** Only client-side tools' calls wait: give each its `{ result }` or `{ error }` on `resume()`. */
      status: "needs_results";
      stopReason?: undefined;
      endedBy?: undefined;
      pending?: undefined;
      external: ExternalCall[];
      limit?: undefined;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      status: "limit_reached";
      stopReason?: undefined;
      endedBy?: undefined;
      pending?: undefined;
      /** The usage limit that ended the run: its name, its value, and what was used. */
      limit: ReachedLimit;
      stoppedBy?: undefined;
    })
  | (RunResultBase & {
      status: "stopped_by_condition";
      stopReason?: undefined;
      endedBy?: undefined;
      pending?: undefined;
      limit?: undefined;
      /** The `stopWhen` condition that ended the run: its index, and its name when it has one. */
      stoppedBy: StoppedBy;
    });

/**
 * What `run()` resolves with for every normal ending, discriminated by `status`: check it and
 * TypeScript knows which fields are there (`output` when `"completed"`, `pending` when
 * `"needs_approval"`, `endedBy` when `"ended_by_tool"`, `limit` when `"limit_reached"`).
 * `Output` is the type of the loop's (or the run's) `output` schema.
 *
 * @example
 * const result = await loop.run(prompt);
 * if (result.status === "needs_approval") save(result.state, result.pending);
 */
export type RunResult<Output = unknown> =
  | (Exclude<RunEnding, { status: "completed" | "max_steps" }> & { output?: undefined })
  | (Extract<RunEnding, { status: "completed" | "max_steps" }> & {
      status: "completed";
      /** The final answer, validated against the `output` schema (undefined without one). */
      output: Output;
    })
  | (Extract<RunEnding, { status: "completed" | "max_steps" }> & {
      status: "max_steps";
      output?: undefined;
    });
