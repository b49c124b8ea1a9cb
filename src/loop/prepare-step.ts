import type { ToolSpec } from "../types/messages.js";
import type { ModelRequest } from "../types/provider.js";
import type { Tool } from "../types/tool.js";
import type { MaybePromise } from "../util/maybe-promise.js";
import { notInstalled } from "./feature-slot.js";
import type { RunContext } from "./run-context.js";
import type { StepSteering } from "./step-steering.js";

/**
 * The tools of one step: what the model is shown and what may run. Plain data, shared and
 * frozen when every tool is offered (computed once per loop, not per step).
 */
export interface ToolsOfStep<Deps> {
  shown: readonly Tool<Deps>[];
  shownNames: readonly string[];
  specs: readonly ToolSpec[];
  /** The callable tool of this name, if any. */
  find(name: string): Tool<Deps> | undefined;
  callableNames: readonly string[];
  callableTools: readonly Tool<Deps>[];
  toolChoice?: ModelRequest["toolChoice"];
  /** What else `prepareStep` changed for this step (instructions, settings, provider, messages). */
  steering?: StepSteering;
}

/**
 * The tools of this step and what else it changes: every tool, unless the loop has a
 * `prepareStep` (then its answer, read by `preparedStep`, loaded with the first run that has one).
 */
export function prepareStep<Deps>(run: RunContext<Deps>): MaybePromise<ToolsOfStep<Deps>> {
  if (!run.config.options.policy.prepareStep) return everyTool(run);
  if (!preparedStep) throw notInstalled("prepareStep's reader");
  return preparedStep(run);
}

/** What reads `prepareStep`'s answer into the step's tools (`prepare-answer.ts`). */
export type PreparedStep = <Deps>(run: RunContext<Deps>) => MaybePromise<ToolsOfStep<Deps>>;

let preparedStep: PreparedStep | undefined;

/** Installs the reader of `prepareStep`'s answer (`step-features.ts`, once loaded). */
export function installPreparedStep(read: PreparedStep): void {
  preparedStep = read;
}

/**
 * Every tool shown and callable: computed once per loop, kept in its options (a `WeakMap` entry
 * per loop cost more than the lists, with a new loop per run).
 */
export function everyTool<Deps>(run: RunContext<Deps>): ToolsOfStep<Deps> {
  const { options } = run.config;
  const { tools, specs } = options;
  const cached = options.everyTool;
  if (cached?.tools === tools) return cached.offered as ToolsOfStep<Deps>;
  const all = Object.freeze([...tools]);
  const names = Object.freeze(tools.names());
  const every: ToolsOfStep<Deps> = Object.freeze({
    shown: all,
    shownNames: names,
    specs: Object.freeze([...specs]),
    find: (name: string) => tools.find(name),
    callableNames: names,
    callableTools: all,
  });
  options.everyTool = { tools, offered: every };
  return every;
}
