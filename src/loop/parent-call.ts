import type { LoopEvent } from "../events.js";
import { addUsage, type Usage } from "../messages.js";
import type { ResumePlan } from "../state/resume-plan.js";
import type { RunState } from "../state/run-state.js";
import type { ToolContext } from "../tools/tool.js";
import type { RunContext } from "./run-context.js";

/**
 * What a sub-agent's run (`loop.asTool`) learns from the parent's call that starts it: where
 * its events go, the paused sub-run to continue when the parent was resumed, and how to pause
 * the parent. Found from the call's `ToolContext`: a tool run outside a loop, or given another
 * context object, has none.
 */
export interface ParentCall {
  /** The parent's run id. */
  readonly runId: string;
  /** The parent's call that runs the sub-agent. */
  readonly toolCallId: string;
  /** The paused sub-run this call continues (checked by the parent's resume), if any. */
  readonly continues: ResumePlan | undefined;
  /**
   * Hands one of the sub-run's events to the parent's listeners, wrapped in a `sub-run` event;
   * the usage of its model calls (at any depth) adds up into the parent's.
   */
  forward(event: LoopEvent): void;
  /** The sub-run paused for approval: the call waits on its state, and so the parent pauses. */
  pause(state: RunState): void;
}

/** The parent call of each tool context that runs a call. */
const parentCalls = new WeakMap<object, ParentCall>();

/**
 * Links a call's tool context to the call, for a sub-agent tool to find (`parentCallOf`).
 * Returns a reading of whether the sub-agent paused (its state), once the tool has returned.
 */
export function linkParentCall<Deps>(
  run: RunContext<Deps>,
  ctx: ToolContext<Deps>,
  step: number,
  continues: ResumePlan | undefined,
): () => RunState | undefined {
  let paused: RunState | undefined;
  const { toolCallId, toolName } = ctx;
  parentCalls.set(ctx, {
    runId: run.runId,
    toolCallId,
    continues,
    forward(event) {
      const usage = modelUsageOf(event);
      if (usage) run.usage = addUsage(run.usage, usage);
      if (run.listening()) {
        run.emit({ type: "sub-run", runId: run.runId, step, toolCallId, toolName, event });
      }
    },
    pause(state) {
      paused = state;
    },
  });
  return () => paused;
}

/** The parent call a tool runs for, when the loop runs it with this context. */
export function parentCallOf(ctx: unknown): ParentCall | undefined {
  return typeof ctx === "object" && ctx !== null ? parentCalls.get(ctx) : undefined;
}

/** The usage of a model call, when the event (or the sub-run event it wraps) is one. */
function modelUsageOf(event: LoopEvent): Usage | undefined {
  if (event.type === "model-response") return event.usage;
  return event.type === "sub-run" ? modelUsageOf(event.event) : undefined;
}
