import { messageOf, PolicyError, RetryError } from "../errors.js";
import type { ToolCall } from "../messages.js";
import type { Tool } from "../tools/tool.js";
import { isToolError } from "../tools/tool-errors.js";
import { toJsonOutput } from "../tools/tool-output.js";
import { isPromise } from "../util/maybe-promise.js";
import { threw } from "../util/policy-call.js";
import type { RunContext } from "./run-context.js";
import { toolContext } from "./tool-context.js";

/**
 * An allowed call, ready to run. `slot` is its position in the step; `parsed` is the schema's
 * output for `call.args`, computed once: what `execute` gets.
 */
export interface Execution<Deps> {
  slot: number;
  call: ToolCall;
  parsed: unknown;
  tool: Tool<Deps>;
}

/**
 * How an execution ended. `raw` is the value as the tool returned it (for `endsRun`);
 * `"unfit"`: the tool returned a value JSON cannot carry; `"policy"`: the policy's
 * `executeTool` failed on its own (not the tool), which ends the run.
 */
export type Settled =
  | { slot: number; kind: "ok"; output: unknown; raw: unknown; ms: number }
  | {
      slot: number;
      kind: "error" | "retry" | "timeout" | "unfit" | "policy";
      output: string;
      error: unknown;
      ms: number;
    };

/**
 * What the step does around each execution: before it starts (may wait), once it settled,
 * and whether executions not yet started should be left alone (the run is failing).
 */
export interface ExecutionHooks<Deps> {
  start(execution: Execution<Deps>): Promise<void> | undefined;
  settled(done: Settled): void;
  halted(): boolean;
}

/**
 * Runs a step's allowed calls, up to `maxParallelToolCalls` at once; a `sequential` tool runs
 * alone, after the calls before it settle and before the calls after it start. Reports each
 * execution as it settles (completion order); never rejects for a tool's failure. Once the run
 * is aborted no call starts (the run itself has rejected already, see `AgentLoop`).
 */
export async function executeCalls<Deps>(
  run: RunContext<Deps>,
  executions: readonly Execution<Deps>[],
  step: number,
  tools: readonly Tool<Deps>[],
  hooks: ExecutionHooks<Deps>,
): Promise<void> {
  for (const batch of batches(executions)) {
    if (hooks.halted()) return;
    if (batch.length === 1) {
      const done = await startOne(run, batch[0]!, step, tools, hooks);
      if (done) hooks.settled(done);
    } else await executeBatch(run, batch, step, tools, hooks);
    run.signal.throwIfAborted();
  }
}

/** Splits at sequential tools: each sequential call is a batch of its own. */
function batches<Deps>(executions: readonly Execution<Deps>[]): Execution<Deps>[][] {
  if (executions.length === 0) return [];
  if (!executions.some((execution) => execution.tool.sequential)) return [executions.slice()];
  const result: Execution<Deps>[][] = [];
  let current: Execution<Deps>[] = [];
  for (const execution of executions) {
    if (!execution.tool.sequential) {
      current.push(execution);
      continue;
    }
    if (current.length > 0) result.push(current);
    result.push([execution]);
    current = [];
  }
  if (current.length > 0) result.push(current);
  return result;
}

function executeBatch<Deps>(
  run: RunContext<Deps>,
  batch: readonly Execution<Deps>[],
  step: number,
  tools: readonly Tool<Deps>[],
  hooks: ExecutionHooks<Deps>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = 0;
    let running = 0;
    let settled = 0;
    const onSettled = (done: Settled | undefined) => {
      running--;
      settled++;
      if (done) hooks.settled(done);
      if (settled === batch.length) resolve();
      else startMore();
    };
    const startMore = () => {
      // After an abort (the run has already rejected) no further tool starts.
      while (
        running < run.options.maxParallelToolCalls &&
        started < batch.length &&
        !run.signal.aborted
      ) {
        running++;
        startOne(run, batch[started++]!, step, tools, hooks).then(onSettled, reject);
      }
    };
    startMore();
  });
}

/**
 * Starts one execution once `start` allows it. Only `start` (the checkpoint before the tool)
 * can reject, and then the tool never ran; after an abort the tool is not started at all, and
 * once the step is halted it is skipped (`undefined`).
 */
function startOne<Deps>(
  run: RunContext<Deps>,
  execution: Execution<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
  hooks: ExecutionHooks<Deps>,
): Promise<Settled | undefined> {
  if (hooks.halted()) return Promise.resolve(undefined);
  const execute = () =>
    run.signal.aborted ? new Promise<Settled>(() => {}) : executeOne(run, execution, step, tools);
  const ready = hooks.start(execution);
  return ready ? ready.then(execute) : execute();
}

const TIMED_OUT = Symbol("timed out");

async function executeOne<Deps>(
  run: RunContext<Deps>,
  execution: Execution<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
): Promise<Settled> {
  const { slot, call, tool } = execution;
  const started = performance.now();
  const timeout = tool.timeoutMs === undefined ? undefined : new AbortController();
  const signal = timeout ? AbortSignal.any([run.signal, timeout.signal]) : run.signal;
  const ctx = toolContext(run, tool, call, step, signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    let running = invoke(run, execution, tools, step, ctx);
    if (timeout) {
      running = Promise.race([
        running,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            // Settle as timed out first: a tool that answers its signal at once must not win.
            reject(TIMED_OUT);
            timeout.abort(new Error(`tool ${call.name} timed out after ${tool.timeoutMs} ms`));
          }, tool.timeoutMs);
        }),
      ]);
    }
    const raw = running instanceof Promise ? await running : running;
    const ms = performance.now() - started;
    const json = toJsonOutput(raw);
    if (json.ok) return { slot, kind: "ok", output: json.output, raw, ms };
    const output = `tool ${call.name} returned a value JSON cannot carry: ${json.problem}`;
    return { slot, kind: "unfit", output, error: undefined, ms };
  } catch (error) {
    const ms = performance.now() - started;
    if (error === TIMED_OUT) {
      const output = `tool ${call.name} timed out after ${tool.timeoutMs} ms`;
      return { slot, kind: "timeout", output, error: timeout!.signal.reason, ms };
    }
    if (error instanceof PolicyError) {
      return { slot, kind: "policy", output: `not run: ${error.message}`, error, ms };
    }
    const kind = error instanceof RetryError ? "retry" : "error";
    return { slot, kind, output: messageOf(error), error, ms };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the tool with its parsed args (or the policy's `executeTool`); returns what it returns,
 * promise or not. What `executeTool` throws is the tool's failure when the tool threw it, else
 * a `PolicyError`.
 */
function invoke<Deps>(
  run: RunContext<Deps>,
  { call, parsed, tool }: Execution<Deps>,
  tools: readonly Tool<Deps>[],
  stepIndex: number,
  ctx: ReturnType<typeof toolContext<Deps>>,
): unknown {
  const { policy } = run.options;
  const { executeTool } = policy;
  if (!executeTool) return tool.execute(parsed, ctx);
  const blame = (error: unknown) => {
    throw error instanceof RetryError || isToolError(error, ctx)
      ? error
      : threw("executeTool", tool.name, error);
  };
  try {
    const result = executeTool.call(policy, {
      call,
      args: parsed,
      tool,
      tools: tools.slice(),
      stepIndex,
      signal: ctx.signal,
      ctx,
    });
    return isPromise(result) ? Promise.resolve(result).catch(blame) : result;
  } catch (error) {
    return blame(error);
  }
}
