import { TollgateError } from "../errors.js";
import type { ResumePlan } from "../state/resume/resolutions.js";
import type { LoopEvent } from "../types/events.js";
import type { Usage } from "../types/messages.js";
import type { RunState } from "../types/run-state.js";
import type { ToolContext } from "../types/tool.js";
import type { RunContext } from "./run-context.js";
import { subRunUsed } from "./run-record.js";

/**
 * What a sub-agent's run (`loop.asTool`) learns from the parent's call that starts it: where
 * its events go, the paused sub-run to continue when the parent was resumed, and how to pause
 * the parent. Found from the call's `ToolContext` (or a copy of it): a tool run outside a loop
 * has none.
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
  /**
   * The sub-run paused for approval: the call waits on its state, and so the parent pauses.
   * `by` is the sub-agent's tool. Throws a `TollgateError` when the call's tool is another
   * (a tool that wraps the sub-agent's): a resume continues a sub-run only through the
   * sub-agent's own tool, so that pause could never be resumed.
   */
  pause(state: RunState, by: { name: string; execute: unknown }): void;
}

/**
 * Where a tool context keeps its parent call. A symbol key in the context itself, not a
 * `WeakMap` from context to call: a `WeakMap` entry per tool call cost about 0.5 µs, a tenth of
 * a step. A copy of the context (`{ ...ctx }`, a wrapping tool's) keeps the link.
 */
const PARENT_CALL = Symbol("tollgate.parentCall");

/** A call's link to its run, for the sub-agent it may start. */
export class ParentLink<Deps> implements ParentCall {
  /** The sub-run's paused state, once it paused. */
  paused: RunState | undefined;
  readonly runId: string;
  readonly #run: RunContext<Deps>;
  readonly #step: number;
  readonly #toolName: string;
  /** The `execute` of the call's tool, which a resume would run again to continue a sub-run. */
  readonly #execute: unknown;

  constructor(
    run: RunContext<Deps>,
    step: number,
    readonly toolCallId: string,
    toolName: string,
    execute: unknown,
    readonly continues: ResumePlan | undefined,
  ) {
    this.runId = run.runId;
    this.#run = run;
    this.#step = step;
    this.#toolName = toolName;
    this.#execute = execute;
  }

  /** Hands a sub-run's event to the parent's listeners; model usage adds up into the parent's. */
  forward(event: LoopEvent): void {
    const run = this.#run;
    const usage = modelUsageOf(event);
    if (usage) subRunUsed(run, usage);
    if (run.listening()) {
      const { runId, toolCallId } = this;
      run.emit({
        type: "sub-run",
        runId,
        step: this.#step,
        toolCallId,
        toolName: this.#toolName,
        event,
      });
    }
  }

  /** The sub-run paused for approval: the parent's call waits on its state. */
  pause(state: RunState, by: { name: string; execute: unknown }): void {
    if (by.execute !== this.#execute) {
      throw new TollgateError(
        `sub-agent ${by.name} paused for approval inside tool ${this.#toolName}, which is not the sub-agent's own tool: a resume continues a paused sub-agent only through that tool (loop.asTool()), so give it to the parent loop itself instead of calling it from another tool; its pending calls did not run`,
      );
    }
    this.paused = state;
  }
}

/**
 * Links a call's tool context to the call, for a sub-agent tool to find (`parentCallOf`).
 * The link's `paused` holds the sub-run's state once the sub-agent paused.
 */
export function linkParentCall<Deps>(
  run: RunContext<Deps>,
  ctx: ToolContext<Deps>,
  step: number,
  execute: unknown,
  continues: ResumePlan | undefined,
): ParentLink<Deps> {
  const link = new ParentLink(run, step, ctx.toolCallId, ctx.toolName, execute, continues);
  (ctx as { [PARENT_CALL]?: ParentLink<Deps> })[PARENT_CALL] = link;
  return link;
}

/** The parent call a tool runs for, when the loop runs it with this context (or a copy of it). */
export function parentCallOf(ctx: unknown): ParentCall | undefined {
  if (typeof ctx !== "object" || ctx === null) return undefined;
  const link = (ctx as { [PARENT_CALL]?: unknown })[PARENT_CALL];
  return link instanceof ParentLink ? link : undefined;
}

/** The usage of a model call, when the event (or the sub-run event it wraps) is one. */
function modelUsageOf(event: LoopEvent): Usage | undefined {
  if (event.type === "model-response") return event.usage;
  return event.type === "sub-run" ? modelUsageOf(event.event) : undefined;
}
