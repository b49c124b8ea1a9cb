import { messageOf, PolicyError, RetryError, ToolFailureError } from "../errors.js";
import { acceptedOrRetry } from "../output/output-validator.js";
import { isToolError, unnoted } from "../tools/tool-errors.js";
import { toJsonOutput } from "../tools/tool-output.js";
import type { ToolContentPart } from "../types/messages.js";
import type { RunState } from "../types/run-state.js";
import type { Tool, ToolContext } from "../types/tool.js";
import { hasLazySignal, SIGNAL_FROM, withLazySignal } from "../util/lazy-signal.js";
import { andThen } from "../util/maybe-promise.js";
import { threw } from "../util/policy-call.js";
import type { OpenCall } from "./call-record.js";
import { linkParentCall } from "./parent-call.js";
import type { RunContext } from "./run-context.js";

/**
 * How one tool run ended. `raw` is the value as the tool returned it (for `endsRun`);
 * `"unfit"`: the tool returned a value JSON cannot carry; `"policy"`: the policy's
 * `executeTool` failed on its own (not the tool), which ends the run.
 */
export type ToolRun =
  | {
      kind: "ok";
      output: unknown;
      content: ToolContentPart[] | undefined;
      raw: unknown;
      ms: number;
    }
  | {
      kind: "error" | "retry" | "timeout" | "unfit" | "policy" | "unknown";
      output: string;
      error: unknown;
      ms: number;
    }
  | { kind: "paused"; state: RunState; ms: number };

const TIMED_OUT = Symbol("timed out");

/**
 * Runs one allowed call's tool (or the policy's `executeTool`) with its parsed args and the
 * tool's timeout; never rejects for the tool's failure: the failure is the `ToolRun`. A
 * sub-agent tool whose run paused for approval gives `"paused"`, with the sub-run's state.
 */
export function runTool<Deps>(
  run: RunContext<Deps>,
  open: OpenCall<Deps>,
  step: number,
  tools: readonly Tool<Deps>[],
): Promise<ToolRun> {
  const tool = open.tool!;
  const call = open.call!;
  const started = performance.now();
  const timeout = tool.timeoutMs === undefined ? undefined : new AbortController();
  const signal = timeout ? AbortSignal.any([run.abort.signal, timeout.signal]) : undefined;
  const ctx = toolContext(run, tool, call, step, signal);
  const link = linkParentCall(run, ctx, step, tool.execute, open.continues);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = (raw: unknown): ToolRun => {
    clearTimeout(timer);
    const ms = performance.now() - started;
    const waiting = link.paused;
    if (waiting) return { kind: "paused", state: waiting, ms };
    const json = toJsonOutput(raw);
    if (json.ok) return { kind: "ok", output: json.output, content: json.content, raw, ms };
    const output = `tool ${call.name} returned a value JSON cannot carry: ${json.problem}`;
    return { kind: "unfit", output, error: undefined, ms };
  };
  const threwOrTimedOut = (error: unknown): ToolRun => {
    clearTimeout(timer);
    const ms = performance.now() - started;
    if (error === TIMED_OUT) {
      const output = `tool ${call.name} timed out after ${tool.timeoutMs} ms`;
      return { kind: "timeout", output, error: timeout!.signal.reason, ms };
    }
    const waiting = link.paused;
    if (waiting) return { kind: "paused", state: waiting, ms };
    if (error instanceof PolicyError) {
      return { kind: "policy", output: `not run: ${error.message}`, error, ms };
    }
    const kind =
      error instanceof RetryError
        ? "retry"
        : error instanceof ToolFailureError && error.outcomeUnknown
          ? "unknown"
          : "error";
    return { kind, output: messageOf(error), error, ms };
  };
  // Not an async function: a tool's promise is followed with one then(), not an await and
  // an async function's own promise.
  let running: unknown;
  try {
    running = invoke(run, open, tools, step, ctx);
    // The final answer ("tool" mode) passes `output.validate`: a refusal is a RetryError.
    const validator = tool === run.config.output?.tool ? run.config.output.validator : undefined;
    if (validator) running = andThen(running, (raw) => acceptedOrRetry(validator, raw, run, step));
  } catch (error) {
    return Promise.resolve(threwOrTimedOut(error));
  }
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
  // A tool's promise is followed; any other value (a bare thenable too) is its output as it is.
  if (running instanceof Promise) return running.then(ended, threwOrTimedOut);
  return Promise.resolve(ended(running));
}

/**
 * Runs the tool with its parsed args (or the policy's `executeTool`); returns what it returns,
 * promise or not. What `executeTool` throws is the tool's failure when the tool threw it (or
 * it is a `RetryError` or a `ToolFailureError`), else a `PolicyError`.
 */
function invoke<Deps>(
  run: RunContext<Deps>,
  { call, parsed, tool }: OpenCall<Deps>,
  tools: readonly Tool<Deps>[],
  stepIndex: number,
  ctx: ReturnType<typeof toolContext<Deps>>,
): unknown {
  const { policy } = run.config.options;
  const { executeTool } = policy;
  if (!executeTool) return unnoted(tool!.execute).call(tool, parsed, ctx);
  const blame = (error: unknown): never => {
    throw error instanceof RetryError ||
      error instanceof ToolFailureError ||
      isToolError(error, ctx)
      ? error
      : threw("executeTool", tool!.name, error);
  };
  try {
    const given = { call: call!, args: parsed, tool: tool!, tools: [...tools], stepIndex, ctx };
    const result = executeTool.call(
      policy,
      hasLazySignal(ctx)
        ? withLazySignal({ ...given, [SIGNAL_FROM]: ctx })
        : { ...given, signal: ctx.signal },
    );
    return andThen(result, (value) => value, blame);
  } catch (error) {
    return blame(error);
  }
}

/**
 * The context a call runs with (and that its tool's `needsApproval` gets): built in this one
 * place, from the run and the call; `signal` is the call's own (with a timeout), else the run's,
 * made when the tool first reads `ctx.signal` (`withLazySignal`).
 */
export function toolContext<Deps>(
  run: RunContext<Deps>,
  tool: Tool<Deps>,
  call: { id: string; rawArgs: string },
  step: number,
  signal?: AbortSignal,
): ToolContext<Deps> {
  // Two whole literals, not one with the signal added after: adding a property to a made
  // literal cost 6–14 % of a run (A/B in one process).
  if (signal || !run.abort.handsOutLazily()) {
    return {
      deps: run.config.deps,
      toolCallId: call.id,
      toolName: tool.name,
      retry: run.retries.get(tool.name) ?? 0,
      maxRetries: tool.maxRetries,
      step,
      signal: signal ?? run.abort.signal,
      rawArgs: call.rawArgs,
    };
  }
  return withLazySignal({
    deps: run.config.deps,
    toolCallId: call.id,
    toolName: tool.name,
    retry: run.retries.get(tool.name) ?? 0,
    maxRetries: tool.maxRetries,
    step,
    rawArgs: call.rawArgs,
    [SIGNAL_FROM]: run.abort.view,
  });
}
