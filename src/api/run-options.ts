import type { OutputOption } from "../output/output-option.js";
import type { UsageLimits } from "../types/limits.js";
import type { ModelSettings } from "../types/provider.js";
import type { StopCondition } from "../types/stop-conditions.js";

/** Per-run options. */
export interface RunOptions<Deps = unknown> {
  /** Aborts this run; the run rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Replaces the loop's `deps` for this run. */
  deps?: Deps | undefined;
  /** Replaces the loop's `maxSteps` for this run. */
  maxSteps?: number | undefined;
  /** Replaces the loop's `instructions` (the system prompt) for this run. */
  instructions?: string | undefined;
  /** Settings for this run, over the loop's: a key given here wins, the loop's others stay. */
  settings?: ModelSettings | undefined;
  /** Replaces the loop's structured `output` for this run (`result.output` is typed from it). */
  output?: OutputOption<any, Deps> | undefined;
  /**
   * Usage limits for this run, over the loop's, key by key: `{ toolCalls: 3 }` changes that
   * limit and keeps the loop's others. They hold across `resume()`: the state carries them.
   */
  limits?: UsageLimits | undefined;
  /**
   * The run's id (default: a random UUID); a `RunStore` keeps the run's states under it. With
   * a store, a second live run with the same id is refused (`StoreError`).
   */
  runId?: string | undefined;
  /** Replaces the loop's `stopWhen` conditions for this run. */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /** Replaces the loop's `timeoutMs` (the whole run, in milliseconds) for this run. */
  timeoutMs?: number | undefined;
  /** Replaces the loop's `modelTimeoutMs` (each model call, in milliseconds) for this run. */
  modelTimeoutMs?: number | undefined;
}

/**
 * Per-resume options; steps, usage, `maxSteps`, `runId` and the usage limits (with what was
 * used of them) carry over from the state. A state
 * does not hold `deps`, `instructions` or `settings`: the resumed run uses the loop's, unless
 * given here again (as `run()` was given them).
 */
export interface ResumeOptions<Deps = unknown> {
  signal?: AbortSignal | undefined;
  deps?: Deps | undefined;
  /** Replaces the loop's `instructions` for the rest of the run. */
  instructions?: string | undefined;
  /** Settings for the rest of the run, over the loop's, key by key. */
  settings?: ModelSettings | undefined;
  /** The structured `output` of the rest of the run, when `run()` was given its own (a state does not hold it). */
  output?: OutputOption<any, Deps> | undefined;
  /** The `stopWhen` conditions of the rest of the run (a state does not hold them). */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /** Milliseconds the resumed run may take, instead of the loop's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Milliseconds each model call may take, instead of the loop's `modelTimeoutMs`. */
  modelTimeoutMs?: number | undefined;
}
