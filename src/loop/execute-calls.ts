import { ToolExecutionError, ToolOutputError } from "../errors.js";
import type { Tool } from "../types/tool.js";
import { andThen, type MaybePromise } from "../util/maybe-promise.js";
import { awaitsResult, type OpenCall, ran, started, waitsOnSubRun } from "./call-record.js";
import { closeStoppedStep, type Guarded, guardOutput, postDecisionEvent } from "./guard-output.js";
import type { RunContext } from "./run-context.js";
import { failTool, notRunByLimit, takeToolCall, toolExecuted } from "./run-record.js";
import { runTool, type ToolRun } from "./run-tool.js";
import type { OpenStep } from "./step.js";
import { errorEvent, resultEvent } from "./step.js";

/**
 * Phase two of a step: runs the allowed calls, up to `maxParallelToolCalls` at once; a
 * `sequential` tool runs alone, after the calls before it settle and before the calls after
 * it start. Each call is checkpointed before it starts and after it settles, and its result
 * event goes out as it settles (completion order). A failure that ends the run (a tool's error
 * under `toolErrors: "throw"`, retries exceeded, the policy's `executeTool` failing) lets the
 * running calls settle, starts no more, and is thrown once they did. Returns the calls that
 * succeeded, in call order. Once the run is aborted no call starts (the run itself has
 * rejected already, see `AgentLoop`). Each result passes the post-call chain before it is
 * recorded; a post-call stop likewise lets the running calls settle and starts no more, and
 * the step's calls still without a result get "not run" (see `closeStoppedStep`).
 */
export function executeCalls<Deps>(
  run: RunContext<Deps>,
  step: OpenStep<Deps>,
  calls: readonly OpenCall<Deps>[],
): Promise<Succeeded<Deps>[]> {
  const execution = new StepExecution(run, step);
  const groups = batches(calls);
  // Batch after batch, each followed with one then() (an async function costs two promises);
  // the last then() returns the calls that succeeded as they are, not a promise of them.
  const from = (index: number): Succeeded<Deps>[] | Promise<Succeeded<Deps>[]> => {
    if (index === groups.length || execution.halted) {
      const { written } = execution;
      return written ? written.then(() => execution.finish()) : execution.finish();
    }
    const batch = groups[index]!;
    const running = batch.length === 1 ? execution.startOne(batch[0]!) : execution.runBatch(batch);
    return running.then(() => {
      run.abort.throwIfAborted();
      return from(index + 1);
    });
  };
  return settledWith(() => from(0));
}

/** What `make` returns, as a promise; what it throws, as a rejection. */
function settledWith<T>(make: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(make());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A call whose tool succeeded, with the value as the tool returned it (for `endsRun`). */
export interface Succeeded<Deps> {
  open: OpenCall<Deps>;
  raw: unknown;
}

/**
 * What a failed call tells the developer: what `execute` threw (a `RetryError` is meant for
 * the model, not a bug), or a `ToolOutputError` for a value JSON cannot carry.
 */
function developerError<Deps>(open: OpenCall<Deps>, done: ToolRun): unknown {
  if (done.kind === "error") return done.error;
  if (done.kind !== "unfit") return undefined;
  return new ToolOutputError(done.output, open.record.toolName, open.record.toolCallId);
}

/** Splits at sequential tools: each sequential call is a batch of its own. */
function batches<Deps>(calls: readonly OpenCall<Deps>[]): OpenCall<Deps>[][] {
  if (calls.length === 0) return [];
  if (!calls.some((open) => open.tool!.sequential)) return [calls.slice()];
  const result: OpenCall<Deps>[][] = [];
  let current: OpenCall<Deps>[] = [];
  for (const open of calls) {
    if (!open.tool!.sequential) {
      current.push(open);
      continue;
    }
    if (current.length > 0) result.push(current);
    result.push([open]);
    current = [];
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** The executions of one step: what ran, what failed, and the writes in flight. */
class StepExecution<Deps> {
  readonly #run: RunContext<Deps>;
  readonly #step: OpenStep<Deps>;
  readonly #tools: readonly Tool<Deps>[];
  readonly #succeeded: Succeeded<Deps>[] = [];
  #failure: unknown;
  #written: Promise<void> | undefined;

  constructor(run: RunContext<Deps>, step: OpenStep<Deps>) {
    this.#run = run;
    this.#step = step;
    this.#tools = step.tools.callableTools;
  }

  /** Whether calls not yet started are left alone: the run is failing, or a post-call hook stopped it. */
  get halted(): boolean {
    return this.#failure !== undefined || this.#step.stop !== undefined;
  }

  /** Runs a batch of calls that may run together, up to `maxParallelToolCalls` at once. */
  runBatch(batch: readonly OpenCall<Deps>[]): Promise<void> {
    const run = this.#run;
    return new Promise((resolve, reject) => {
      let next = 0;
      let running = 0;
      let done = 0;
      const onDone = () => {
        running--;
        done++;
        if (done === batch.length) resolve();
        else startMore();
      };
      const startMore = () => {
        // After an abort (the run has already rejected) no further tool starts.
        while (
          running < run.config.options.maxParallelToolCalls &&
          next < batch.length &&
          !run.abort.aborted
        ) {
          running++;
          this.startOne(batch[next++]!).then(onDone, reject);
        }
      };
      startMore();
    });
  }

  /**
   * Starts one call once its checkpoint is written (only that write can reject, and then the
   * tool never ran); after an abort the tool is not started at all, and once the step is
   * halted it is skipped. A call past the `toolCalls` limit does not start: it gets its
   * "not run" result, and the step ends the run.
   */
  startOne(open: OpenCall<Deps>): Promise<void> {
    if (this.halted) return Promise.resolve();
    const run = this.#run;
    const limit = takeToolCall(run, open);
    if (limit) {
      notRunByLimit(open, limit);
      this.#step.limit ??= limit;
      if (run.listening()) run.emit(resultEvent(run, this.#step.index, open.record, 0));
      return Promise.resolve();
    }
    if (open.tool!.external) return this.#awaitResult(open);
    started(open);
    const execute = (): Promise<void> =>
      run.abort.aborted
        ? new Promise<void>(() => {})
        : runTool(run, open, this.#step.index, this.#tools).then((done) =>
            this.#settle(open, done),
          );
    return run.config.options.store ? run.checkpoint().then(execute) : execute();
  }

  /**
   * A client-side tool's allowed call does not run here: it waits for its result from
   * `resume()` (checkpointed, so a crash keeps it waiting), counted as a tool call.
   */
  #awaitResult(open: OpenCall<Deps>): Promise<void> {
    awaitsResult(open);
    if (this.#run.config.options.store) this.#checkpoint();
    return Promise.resolve();
  }

  /**
   * Passes the call's result through the post-call chain, then records how the call ended,
   * counts its failure, checkpoints it, and emits its result. A call whose sub-agent paused
   * waits on the sub-run instead: no result yet (it comes on resume).
   */
  #settle(open: OpenCall<Deps>, done: ToolRun): MaybePromise<void> {
    const run = this.#run;
    if (done.kind === "paused") {
      waitsOnSubRun(open, done.state);
      if (run.config.options.store) this.#checkpoint();
      return;
    }
    return andThen(guardOutput(run, this.#step, open, done), (guarded) =>
      this.#record(open, done, guarded),
    );
  }

  /** Records a settled call's result as the post-call chain left it (see `#settle`). */
  #record(
    open: OpenCall<Deps>,
    done: Exclude<ToolRun, { kind: "paused" }>,
    guarded: Guarded,
  ): void {
    const run = this.#run;
    ran(open, guarded.ok, guarded.output, done.ms, guarded.content);
    if (guarded.failure !== undefined) this.#failure ??= guarded.failure;
    if (done.kind !== "ok") this.#failure ??= this.#failureOf(open, done);
    else if (guarded.ok) this.#succeeded.push({ open, raw: done.raw });
    if (run.config.options.store) this.#checkpoint();
    if (run.listening()) {
      const error = developerError(open, done);
      if (error !== undefined) run.emit(errorEvent(run, this.#step.index, open.record, error));
      if (guarded.outcome) {
        run.emit(postDecisionEvent(run, this.#step.index, open, guarded.outcome));
      }
      run.emit(resultEvent(run, this.#step.index, open.record, done.ms));
    }
  }

  /** Writes a checkpoint of the step as it stands; awaited (`written`) before the step goes on. */
  #checkpoint(): void {
    const written = this.#run.checkpoint();
    written.catch(() => {}); // awaited before finish(); a failed write must not go unhandled meanwhile
    this.#written = written;
  }

  /** The error a failed call ends the run with, if any; counts `RetryError`s. */
  #failureOf(open: OpenCall<Deps>, done: Exclude<ToolRun, { kind: "ok" | "paused" }>): unknown {
    const run = this.#run;
    const { toolName, toolCallId } = open.record;
    switch (done.kind) {
      case "policy":
        return done.error;
      case "retry":
        try {
          failTool(run, open.tool!, done.error);
        } catch (exceeded) {
          return exceeded;
        }
        return undefined;
      case "error":
        return run.config.options.toolErrors === "throw"
          ? new ToolExecutionError(toolName, toolCallId, { cause: done.error })
          : undefined;
      case "unfit":
        return run.config.options.toolErrors === "throw"
          ? new ToolOutputError(done.output, toolName, toolCallId)
          : undefined;
      case "timeout":
      case "unknown":
        return undefined;
    }
  }

  /** The last checkpoint in flight, if any: awaited before the step goes on. */
  get written(): Promise<void> | undefined {
    return this.#written;
  }

  /** Throws the failure, if any, and lists what succeeded, in call order (once every write is done). */
  finish(): Succeeded<Deps>[] {
    const run = this.#run;
    run.abort.throwIfAborted();
    if (this.#failure) throw this.#failure;
    closeStoppedStep(run, this.#step);
    const order = this.#step.calls;
    const succeeded = this.#succeeded.sort((a, b) => order.indexOf(a.open) - order.indexOf(b.open));
    for (const { open } of succeeded) toolExecuted(run, open.record.toolName);
    return succeeded;
  }
}
