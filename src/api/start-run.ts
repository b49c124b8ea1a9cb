import { RunTimeoutError } from "../errors.js";
import { noteAbortedRun } from "../loop/aborted-runs.js";
import type { StartedRun } from "../loop/event-queue.js";
import { freezeEvent } from "../loop/freeze-event.js";
import { RunAbort } from "../loop/run-abort.js";
import type { RunContext } from "../loop/run-context.js";
import { runLoop } from "../loop/run-loop.js";
import { transcriptOnFailure } from "../loop/step.js";
import { mergeSettings } from "../model/settings.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { checkStopWhen } from "../options/stop-conditions.js";
import type { LocalLeases } from "../state/local-leases.js";
import { runWrites } from "../state/run-writes.js";
import type { RunData } from "../state/snapshot.js";
import type { LoopEvent } from "../types/events.js";
import type { RunResult } from "../types/run-result.js";
import type { EventBus } from "./event-bus.js";
import { giveBack, leased } from "./leased-run.js";
import type { PreparedResume } from "./prepare-resume.js";
import { outputOf } from "./run-input.js";
import type { ResumeOptions, RunOptions } from "./run-options.js";

/** What a loop's runs share: its options, its listeners, this process's leases in its store. */
export interface RunParts<Deps> {
  readonly options: ResolvedOptions<Deps>;
  readonly bus: EventBus;
  readonly leases: LocalLeases;
}

/** A run that has started: its result, and how to give it up. */
export interface Started extends StartedRun {
  readonly result: Promise<RunResult>;
}

/**
 * Starts a run: every event goes to the listeners and, when given, to `sink`. The run's
 * signal aborts when the caller's does, when `abandon()` is called before it ends, or when
 * the run loses its lease. With a store, the run holds the run id's lease while it runs.
 */
export function startRun<Deps>(
  loop: RunParts<Deps>,
  data: RunData,
  options: RunOptions<Deps> | ResumeOptions<Deps>,
  resumed?: PreparedResume,
  sink?: (event: LoopEvent) => void,
): Started {
  const abort = new RunAbort([loop.options.signal, options.signal]);
  const abandon = () => abort.abort(new DOMException("the run was abandoned", "AbortError"));
  const { store } = loop.options;
  if (abort.aborted) {
    if (store && resumed?.lease) void giveBack(loop.leases, store, resumed.lease);
    return { result: Promise.reject(abort.reason), abandon };
  }
  const bus = loop.bus;
  // Listeners get frozen events: nothing they do changes what runs or what is stored.
  const deliver = sink
    ? (event: LoopEvent) => {
        const frozen = freezeEvent(event);
        bus.emit(frozen);
        sink(frozen);
      }
    : (event: LoopEvent) => {
        if (bus.listensTo(event.type)) bus.emit(freezeEvent(event));
      };
  const writes = runWrites(() => run, loop.options);
  // A resumed run goes on with the agent holding it (a handoff's target: `resumed.agent`).
  const agent = resumed?.agent ?? loop.options;
  // Every field written out, in one order: a spread here made each run's context a slow
  // object, and the loop reads it at every turn.
  const run: RunContext<Deps> = {
    runId: data.runId,
    maxSteps: data.maxSteps,
    messages: data.messages,
    steps: data.steps,
    usage: data.usage,
    retries: data.retries,
    unavailableCalls: data.unavailableCalls,
    executed: data.executed,
    denied: data.denied,
    remembered: data.remembered,
    limits: data.limits,
    callCounts: data.callCounts,
    stepInProgress: data.stepInProgress,
    parent: data.parent,
    agent: data.agent ?? agent.name,
    config: Object.freeze({
      options: agent,
      deps: options.deps === undefined ? loop.options.deps : options.deps,
      instructions: options.instructions ?? agent.instructions,
      settings: mergeSettings(agent.settings, options.settings),
      output: outputOf(loop.options, options.output),
      stopWhen: checkStopWhen<Deps>("run()", options.stopWhen) ?? loop.options.stopWhen,
      modelTimeoutMs: options.modelTimeoutMs ?? loop.options.modelTimeoutMs,
    }),
    abort,
    lease: resumed?.lease,
    // After an abort the run has rejected: whatever is still settling emits nothing.
    emit: (event) => {
      if (!abort.aborted) deliver(event);
    },
    // Functions, not getters: an object literal with a getter takes V8's slow path.
    listening: () => sink !== undefined || bus.listening,
    checkpoint: writes.checkpoint,
    write: writes.write,
  };
  // The run's timeout aborts it as its signal would, with a RunTimeoutError as the reason.
  const timeoutMs = options.timeoutMs ?? loop.options.timeoutMs;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const reason = new RunTimeoutError(timeoutMs);
          reason.messages = transcriptOnFailure(run, reason);
          abort.abort(reason);
        }, timeoutMs);
  let lostLease = false;
  const start = store
    ? () =>
        leased(
          run,
          { store, leases: loop.leases },
          (error) => {
            lostLease = true;
            error.messages ??= transcriptOnFailure(run, error);
            abort.abort(error);
          },
          () => runLoop(run, resumed?.plan),
        )
    : () => runLoop(run, resumed?.plan);
  // The one place the run races its signal: it rejects the moment the signal aborts.
  const result = abort.race(start()).then(
    (ended) => {
      clearTimeout(timer);
      abort.detach();
      return ended;
    },
    (error: unknown) => {
      clearTimeout(timer);
      if (abort.aborted && error === abort.reason) {
        noteAbortedRun(run, error);
        // Not given back: its tools may still run, so the lease runs out on its own.
        if (run.lease && !lostLease) loop.leases.leave(run.lease);
      }
      abandon();
      // The run's last event, past the abort that silences the rest: listeners end what they opened.
      if (bus.listensTo("run-error")) {
        bus.emit(freezeEvent({ type: "run-error", runId: run.runId, error }));
      }
      throw error;
    },
  );
  return { result, abandon };
}
