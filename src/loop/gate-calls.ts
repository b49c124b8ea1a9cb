import { gate } from "../gate/gate.js";
import type { SentRequest } from "../gate/gate-types.js";
import type { ToolCall, ToolCallPart } from "../types/messages.js";
import type { FinishReason, ModelRequest } from "../types/provider.js";
import type { DeniedCall } from "../types/run-state.js";
import { canonicalJson } from "../util/canonical-json.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import {
  arrived,
  cutShort,
  decided,
  errorText,
  notHandedOff,
  notRun,
  type OpenCall,
  stopped,
} from "./call-record.js";
import type { ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { countFailure } from "./run-record.js";
import { toolContext } from "./run-tool.js";
import type { OpenStep, Stop } from "./step.js";
import { decisionEvent, handoffOf, resultEvents } from "./step.js";

/**
 * Phase one of a step: every call the model asked for through the gate, in call order, one
 * after the other. Once a hook stops the run, the calls after it are not gated, and no call of
 * the step runs. A response the provider cut (`length`, `content-filter`) runs none of its calls:
 * each callable one is invalid ("not run: the response was cut"), counted as one failure of
 * each tool it names, and the run goes on. Ends with the results of the calls that will not run. Returns the
 * stop, if any; synchronous while the gate is.
 */
export function gateCalls<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  parts: readonly ToolCallPart[],
  tools: ToolsOfStep<Deps>,
): MaybePromise<Stop | undefined> {
  return andThen(gateFrom(run, step, parts, tools, 0, undefined), (stop) => {
    if (stop) {
      const note = stop.reason === undefined ? "" : ` (${stop.reason})`;
      for (const open of step.calls) notRun(open, `not run: the run was stopped${note}`);
    }
    resultEvents(run, step.index, step.calls);
    return stop;
  });
}

/** Gates call `index` and the ones after it (continues at once while the gate answers at once). */
function gateFrom<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  parts: readonly ToolCallPart[],
  tools: ToolsOfStep<Deps>,
  index: number,
  stop: Stop | undefined,
): MaybePromise<Stop | undefined> {
  const format = errorText(run.config.options.formatToolError);
  const { repairToolCall } = run.config.options;
  const sent = repairToolCall && (() => sentRequest(run, tools));
  const cut = cutBy(step.response.finishReason);
  const cutTools = cut ? new Set<string>() : undefined;
  const { handoffs } = run.config.options;
  let handoffCall = handoffs && earlierHandoff(run, step);
  for (; index < parts.length; index++) {
    const part = parts[index]!;
    const open = arrived(part, tools.find(part.name));
    step.calls.push(open);
    if (run.listening()) {
      const { runId } = run;
      const { id: toolCallId, name: toolName, args: rawArgs } = part;
      run.emit({ type: "tool-call", runId, step: step.index, toolCallId, toolName, rawArgs });
    }
    if (stop) {
      stopped(open, stop);
      judged(run, step, open);
      continue;
    }
    if (handoffs && handoffOf(run, open)) {
      // One handoff per step: only the first handoff call of a response reaches the gate.
      if (handoffCall !== undefined) {
        notHandedOff(open, handoffCall, format);
        judged(run, step, open, false);
        continue;
      }
      handoffCall = part.name;
    }
    if (cut && open.tool && tools.callableNames.includes(part.name)) {
      // A cut response's call may be incomplete: it does not reach the gate, and never runs.
      // The cut is the response's failure, so it counts once per tool, however many calls.
      cutShort(open, cut, format);
      judged(run, step, open, !cutTools!.has(part.name));
      cutTools!.add(part.name);
      continue;
    }
    const outcome = gate({
      part,
      tool: open.tool,
      callable: tools.callableNames,
      step: step.index,
      executed: run.executed,
      hooks: run.config.options.hooks,
      policy: run.config.options.policy,
      deps: run.config.deps,
      provider: tools.steering?.provider ?? run.config.options.provider,
      argsLimits: run.config.options.argsLimits,
      context: (tool) => toolContext(run, tool, { id: part.id, rawArgs: part.args }, step.index),
      refused: (call) => refusal(run, call),
      remembered: (name) => run.remembered.find((decision) => decision.toolName === name),
      repair: repairToolCall,
      sent,
    });
    const next = index + 1;
    if (isPromise(outcome)) {
      return andThen(outcome, (answer) => {
        run.abort.throwIfAborted();
        decided(open, answer, format);
        return gateFrom(run, step, parts, tools, next, judged(run, step, open));
      });
    }
    run.abort.throwIfAborted();
    decided(open, outcome, format);
    stop = judged(run, step, open);
  }
  return stop;
}

/**
 * The request each run's model got last, kept (by `requestSent`) only when the loop has a
 * `repairToolCall`, which may read it. Keyed by the run, so it goes with the run.
 */
const sentRequests = new WeakMap<object, ModelRequest>();

/** The model was sent `request` (as the provider got it): a repair of this step reads it. */
export function requestSent<Deps>(run: RunContext<Deps>, request: ModelRequest): void {
  sentRequests.set(run, request);
}

/** The step's request as sent, and its provider (after `prepareStep`), for a repair. */
function sentRequest<Deps>(run: RunContext<Deps>, tools: ToolsOfStep<Deps>): SentRequest {
  // A step gated in a process that did not send its request (none is known to do so): the
  // request as the run would have sent it.
  const request = sentRequests.get(run) ?? rebuiltRequest(run, tools);
  const provider = tools.steering?.provider ?? run.config.options.provider;
  return { request, provider, runId: run.runId, signal: () => run.abort.signal };
}

/** The request as the run would have sent it, for a step whose request this process did not send. */
function rebuiltRequest<Deps>(run: RunContext<Deps>, tools: ToolsOfStep<Deps>): ModelRequest {
  const request: ModelRequest = { messages: run.messages.slice(), tools: [...tools.specs] };
  const system = tools.steering?.instructions ?? run.config.instructions;
  if (system !== undefined) request.system = system;
  return request;
}

/**
 * The finish reason that cut a response short (`length`, `content-filter`), if it was cut: its
 * calls may be incomplete, so none runs. A call to a tool that is not callable still gets the
 * gate's "not available" answer.
 */
const cutBy = (reason: FinishReason) =>
  reason === "length" || reason === "content-filter" ? reason : undefined;

/** The handoff call among a step's calls gated so far (a gate that answered later resumes here). */
function earlierHandoff<Deps>(run: RunContext<Deps>, step: OpenStep<Deps>): string | undefined {
  return step.calls.find((open) => handoffOf(run, open))?.record.toolName;
}

/** After a call's verdict: its event, its failure counted; the stop, when it stopped the run. */
function judged<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  open: OpenCall<Deps>,
  counts = true,
): Stop | undefined {
  if (run.listening()) run.emit(decisionEvent(run, step.index, open));
  if (counts) countFailure(run, open);
  const { verdict, by, reason } = open.record;
  if (verdict !== "stop") return undefined;
  return reason === undefined ? { by } : { by, reason };
}

/** The earlier human refusal of this exact call, unless refusals are not remembered. */
function refusal<Deps>(run: RunContext<Deps>, call: ToolCall): DeniedCall | undefined {
  if (run.config.options.repeatDenied === "ask" || run.denied.length === 0) return undefined;
  const args = canonicalJson(call.args);
  return run.denied.find((denied) => denied.toolName === call.name && denied.args === args);
}
