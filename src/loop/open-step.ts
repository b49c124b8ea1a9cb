import type { PostCallBy } from "../gate/post-call.js";
import { freezeJson } from "../tools/args.js";
import type { ModelResponse } from "../types/provider.js";
import type { CallRecord, StepRecord } from "../types/step-record.js";
import type { ReachedLimit } from "../util/usage-limits.js";
import type { OpenCall } from "./call-record.js";
import type { ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { steeringRecord } from "./step-steering.js";

/** What a step's record keeps of the tools it offered. */
export type OfferedTools<Deps> = Pick<
  ToolsOfStep<Deps>,
  "shownNames" | "callableTools" | "callableNames" | "toolChoice"
>;

/** A step after its model call, while its calls are gated and run. */
export interface OpenStep<Deps> {
  index: number;
  started: number;
  tools: OfferedTools<Deps>;
  response: StepRecord["response"];
  /** One per call that reached the gate, in call order. */
  calls: OpenCall<Deps>[];
  /** The usage limit that stopped one of its calls from running; the run ends with the step. */
  limit?: ReachedLimit;
  /** What `prepareStep` changed for the step besides its tools, as the record keeps it. */
  steered?: SteeredRecord;
  /**
   * A post-call hook's stop: the run ends with the step. When several calls were stopped, the
   * first in call order (`call`, its index in `calls`) names the stop.
   */
  stop?: { by: PostCallBy; reason?: string; call: number };
}

/** The fields of a step record that say what `prepareStep` changed besides the tools. */
type SteeredRecord = Pick<StepRecord, "instructions" | "settings" | "provider" | "messages">;

/** Opens a step on the model's response; the run's checkpoints see it from now on. */
export function openStep<Deps>(
  run: RunContext<Deps>,
  index: number,
  started: number,
  tools: OfferedTools<Deps> & Pick<ToolsOfStep<Deps>, "steering">,
  response: ModelResponse,
): OpenStep<Deps> {
  const { parts, finishReason, usage } = response;
  const step: OpenStep<Deps> = {
    index,
    started,
    tools,
    response: { parts, finishReason, usage },
    calls: [],
  };
  if (tools.steering) step.steered = steeringRecord(tools.steering);
  run.openStep = () => recordOf(step);
  return step;
}

/**
 * Opens a paused (or running) state's last step again, with this loop's tools: the first
 * step of a resumed run.
 */
export function reopenStep<Deps>(
  run: RunContext<Deps>,
  record: StepRecord,
  calls: OpenCall<Deps>[],
): OpenStep<Deps> {
  const { tools } = run.options;
  const outputTool = run.output?.tool;
  const present = (names: string[]) =>
    names.flatMap((name) => (name === outputTool?.name ? outputTool : tools.find(name)) ?? []);
  const offered: OfferedTools<Deps> = {
    shownNames: record.tools,
    callableTools: present(record.callable),
    callableNames: record.callable,
  };
  if (record.toolChoice !== undefined) offered.toolChoice = record.toolChoice;
  const step: OpenStep<Deps> = {
    index: record.index,
    started: performance.now() - record.ms,
    tools: offered,
    response: freezeJson(record.response),
    calls,
  };
  const { instructions, settings, provider, messages } = record;
  const steered: SteeredRecord = {
    ...(instructions !== undefined && { instructions }),
    ...(settings !== undefined && { settings }),
    ...(provider !== undefined && { provider }),
    ...(messages !== undefined && { messages }),
  };
  if (Object.keys(steered).length > 0) step.steered = steered;
  run.openStep = () => recordOf(step);
  return step;
}

/** The step as a record: a copy, so later changes to the open step do not reach it. */
export function recordOf<Deps>(step: OpenStep<Deps>): StepRecord {
  const record: StepRecord = {
    index: step.index,
    // Spread, not slice(): these lists are frozen, and slice() of a frozen array is ~15× slower.
    tools: [...step.tools.shownNames],
    callable: [...step.tools.callableNames],
    response: step.response,
    calls: step.calls.map((call): CallRecord => call.record),
    usage: step.response.usage,
    ms: performance.now() - step.started,
  };
  if (step.tools.toolChoice !== undefined) record.toolChoice = step.tools.toolChoice;
  return step.steered ? { ...record, ...step.steered } : record;
}
