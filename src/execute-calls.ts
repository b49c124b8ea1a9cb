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

/**
 * Runs a step's allowed calls, up to `maxParallelToolCalls` at once; a `sequential` tool runs
 * alone, after the calls before it settle and before the calls after it start. Yields each
 * execution as it settles (completion order); never throws for a tool's failure.
 */
export async function* executeCalls<Deps>(
  run: RunContext<Deps>,
  executions: readonly Execution<Deps>[],
  step: number,
  tools: readonly Tool<Deps>[],
  start: (execution: Execution<Deps>) => Promise<void>,
): AsyncGenerator<Settled> {
  for (const batch of batches(executions)) {
    yield* executeBatch(run, batch, step, tools, start);
  }
}

/** Splits at sequential tools: each sequential call is a batch of its own. */
function batches<Deps>(executions: readonly Execution<Deps>[]): Execution<Deps>[][] {
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

async function* executeBatch<Deps>(
  run: RunContext<Deps>,
  batch: readonly Execution<Deps>[],
  step: number,
  tools: readonly Tool<Deps>[],
  start: (execution: Execution<Deps>) => Promise<void>,
): AsyncGenerator<Settled> {
  const settled: Settled[] = [];
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let started = 0;
  let running = 0;
  const startMore = () => {
    while (running < run.options.maxParallelToolCalls && started < batch.length) {
      running++;
      const execution = batch[started++]!;
      start(execution)
        .then(() => executeOne(run, execution, step, tools))
        .then(
          (done) => {
            running--;
            settled.push(done);
            wake?.();
          },
          (error: unknown) => {
            // Only `start` (the checkpoint before the tool) can fail here; the tool never ran.
            failure ??= { error };
            wake?.();
          },
        );
    }
  };
  startMore();
  for (let yielded = 0; yielded < batch.length; yielded++) {
    if (settled.length === 0 && !failure) {
      await run.race(new Promise<void>((resolve) => (wake = resolve)));
      wake = undefined;
    }
    if (failure) throw failure.error;
    startMore();
    yield settled.shift()!;
  }
}

const TIMED_OUT = Symbol("timed out");

async function executeOne<Deps>(
  run: RunContext<Deps>,
  { slot, call, tool }: Execution<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
): Promise<Settled> {
  const started = performance.now();
  const ms = () => performance.now() - started;
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
            timeout.abort(new Error(`tool ${call.name} timed out after ${tool.timeoutMs} ms`));
            reject(TIMED_OUT);
          }, tool.timeoutMs);
        }),
      ]);
    }
    const raw = await running;
    return { slot, kind: "ok", output: normalizeOutput(raw), raw, ms: ms() };
  } catch (error) {
    if (error === TIMED_OUT) {
      const output = `tool ${call.name} timed out after ${tool.timeoutMs} ms`;
      return { slot, kind: "timeout", output, error: timeout!.signal.reason, ms: ms() };
    }
    const kind = error instanceof RetryError ? "retry" : "error";
    return { slot, kind, output: messageOf(error), error, ms: ms() };
  } finally {
    clearTimeout(timer);
  }
}

async function invoke<Deps>(
  run: RunContext<Deps>,
  call: ToolCall,
  tool: Tool<Deps>,
  tools: readonly Tool<Deps>[],
  stepIndex: number,
  ctx: ToolContext<Deps>,
): Promise<unknown> {
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
