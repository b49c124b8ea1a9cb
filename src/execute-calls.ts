import { messageOf, RetryError } from "./errors.js";
import type { ToolCall } from "./messages.js";
import type { RunContext } from "./run-context.js";
import type { Tool, ToolContext } from "./tool.js";
import { normalizeOutput } from "./tool-output.js";

/** An allowed call, ready to run. `slot` is its position in the step. */
export interface Execution<Deps> {
  slot: number;
  call: ToolCall;
  tool: Tool<Deps>;
}

/** How an execution ended. `raw` is the value as the tool returned it (for `endsRun`). */
export type Settled =
  | { slot: number; kind: "ok"; output: unknown; raw: unknown; ms: number }
  | {
      slot: number;
      kind: "error" | "retry" | "timeout";
      output: string;
      error: unknown;
      ms: number;
    };

/** What the step does around each execution: before it starts (may wait), and once it settled. */
export interface ExecutionHooks<Deps> {
  start(execution: Execution<Deps>): Promise<void> | undefined;
  settled(done: Settled): void;
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
    if (batch.length === 1) hooks.settled(await startOne(run, batch[0]!, step, tools, hooks));
    else await executeBatch(run, batch, step, tools, hooks);
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
    const onSettled = (done: Settled) => {
      running--;
      settled++;
      hooks.settled(done);
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
 * can reject, and then the tool never ran; after an abort the tool is not started at all.
 */
function startOne<Deps>(
  run: RunContext<Deps>,
  execution: Execution<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
  hooks: ExecutionHooks<Deps>,
): Promise<Settled> {
  const execute = () =>
    run.signal.aborted ? new Promise<Settled>(() => {}) : executeOne(run, execution, step, tools);
  const ready = hooks.start(execution);
  return ready ? ready.then(execute) : execute();
}

const TIMED_OUT = Symbol("timed out");

async function executeOne<Deps>(
  run: RunContext<Deps>,
  { slot, call, tool }: Execution<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
): Promise<Settled> {
  const started = performance.now();
  const timeout = tool.timeoutMs === undefined ? undefined : new AbortController();
  const ctx: ToolContext<Deps> = {
    deps: run.deps,
    toolCallId: call.id,
    toolName: call.name,
    retry: run.retries.get(call.name) ?? 0,
    maxRetries: tool.maxRetries,
    step,
    signal: timeout ? AbortSignal.any([run.signal, timeout.signal]) : run.signal,
    rawArgs: call.rawArgs,
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    let running = invoke(run, call, tool, tools, step, ctx);
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
    return { slot, kind: "ok", output: normalizeOutput(raw), raw, ms: performance.now() - started };
  } catch (error) {
    const ms = performance.now() - started;
    if (error === TIMED_OUT) {
      const output = `tool ${call.name} timed out after ${tool.timeoutMs} ms`;
      return { slot, kind: "timeout", output, error: timeout!.signal.reason, ms };
    }
    const kind = error instanceof RetryError ? "retry" : "error";
    return { slot, kind, output: messageOf(error), error, ms };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the tool (or the policy's `executeTool`); returns what it returns, promise or not. */
function invoke<Deps>(
  run: RunContext<Deps>,
  call: ToolCall,
  tool: Tool<Deps>,
  tools: readonly Tool<Deps>[],
  stepIndex: number,
  ctx: ToolContext<Deps>,
): unknown {
  const { executeTool } = run.options.policy;
  if (!executeTool) return tool.execute(call.args, ctx);
  return executeTool.call(run.options.policy, {
    call,
    tool,
    tools: tools.slice(),
    stepIndex,
    signal: ctx.signal,
    ctx,
  });
}
