/**
 * A run inside a durable engine (DBOS, Restate): each model call and each tool execution a
 * recorded step of the engine (`DBOS.runStep`, Restate's `ctx.run`), so that a replay after a
 * crash gets the recorded outcome instead of doing the work again, and a non-idempotent call a
 * crash interrupted settles as "outcome unknown" instead of running twice. Both backends share it.
 */
import { RetryError, ToolFailureError } from "../errors.js";
import type { LoopEvent } from "../types/events.js";
import type { ModelStreamPart, Provider } from "../types/provider.js";
import { OUTCOME_UNKNOWN } from "./durable-pauses.js";

/** The engine's recorded step: runs `work` once, and gives its recorded result on a replay. */
export type RecordStep = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** How a step ended, as the engine records it: data only, the same on every replay. */
type Recorded<T> =
  | { kind: "ok"; output: T }
  | { kind: "error"; message: string; retry: boolean }
  | { kind: "unknown" };

/** The calls an execution of the run made, counted for their steps' names. */
export interface StepCount {
  count: number;
}

/**
 * Runs `work` as a recorded step, a failure recorded as data (an engine may retry a step that
 * throws). The execution that ran it rethrows its own error; a replay, the recorded failure
 * (`unknown` unless `work` may run: see `recordedExecution`).
 */
async function recorded<T>(
  record: RecordStep,
  name: string,
  work: (() => Promise<T>) | undefined,
  failed: (message: string) => Error,
): Promise<T> {
  let thrownHere: unknown;
  let threw = false;
  const outcome = await record(name, async (): Promise<Recorded<T>> => {
    if (work === undefined) return { kind: "unknown" };
    try {
      return { kind: "ok", output: await work() };
    } catch (error) {
      thrownHere = error;
      threw = true;
      const message = error instanceof Error ? error.message : String(error);
      return { kind: "error", message, retry: error instanceof RetryError };
    }
  });
  if (outcome.kind === "ok") return outcome.output;
  if (outcome.kind === "unknown")
    throw new ToolFailureError(OUTCOME_UNKNOWN, { outcomeUnknown: true });
  if (threw) throw thrownHere;
  throw outcome.retry ? new RetryError(outcome.message) : failed(outcome.message);
}

/**
 * The loop's provider, each model call a recorded step (`raw` left out): a replay gets the
 * recorded answer instead of calling the model again. A streaming provider's parts are
 * collected inside the step and handed to the loop once it is recorded.
 */
export function recordedProvider(
  record: RecordStep,
  provider: Provider,
  calls: StepCount,
): Provider {
  const name = () => `tollgate.model:${calls.count++}`;
  const modelError = (message: string) => new Error(message);
  const stepped: Provider = {
    name: provider.name,
    model: provider.model,
    generate: (request, options) =>
      recorded(
        record,
        name(),
        async () => {
          const { raw: _raw, ...response } = await provider.generate(request, options);
          return response;
        },
        modelError,
      ),
  };
  const stream = provider.stream?.bind(provider);
  if (stream === undefined) return stepped;
  return {
    ...stepped,
    async *stream(request, options) {
      const collect = async () => {
        const parts: ModelStreamPart[] = [];
        for await (const part of stream(request, options)) {
          if (part.type !== "finish") parts.push(part);
          else {
            const { raw: _raw, ...finish } = part;
            parts.push(finish);
          }
        }
        return parts;
      };
      yield* await recorded(record, name(), collect, modelError);
    },
  };
}

/** What `executeTool` gets, as far as a recorded execution reads it. */
interface ExecuteArgs {
  call: { id: string };
  tool: { idempotent: boolean; execute?: ((args: never, ctx: never) => unknown) | undefined };
  args: unknown;
  ctx: unknown;
}

/**
 * `executeTool` (or the tool's own `execute`) as recorded steps. A settled call replays its
 * recorded outcome. A call a crash interrupted runs again when its tool is `idempotent`;
 * otherwise it settles as "outcome unknown", never run twice: before it starts, a step records a
 * token drawn by this execution of the run (`token`, never recorded itself), and a tool step
 * that finds another execution's token knows the tool may have started there.
 */
export function recordedExecution<A extends ExecuteArgs>(
  record: RecordStep,
  executeTool: ((args: A) => Promise<unknown>) | undefined,
  token: string,
): (args: A) => Promise<unknown> {
  return async (args) => {
    const { call, tool } = args;
    const run = async (): Promise<unknown> =>
      executeTool ? executeTool(args) : tool.execute!(args.args as never, args.ctx as never);
    const replayed = (message: string) => new ToolFailureError(message);
    const name = `tollgate.tool:${call.id}`;
    if (tool.idempotent) return recorded(record, name, run, replayed);
    const intent = await record(`tollgate.intent:${call.id}`, async () => token);
    return recorded(record, name, intent === token ? run : undefined, replayed);
  };
}

/** A policy, as far as a recorded run wraps it. */
interface PolicyLike {
  decideToolCall?: ((args: never) => unknown) | undefined;
  endsRun?: ((args: never) => unknown) | undefined;
  prepareStep?: ((args: never) => unknown) | undefined;
  executeTool?: ((args: never) => Promise<unknown>) | undefined;
}

/**
 * The user's policy with the engine's steps in it: `executeTool` recorded as above, and a
 * provider `prepareStep` gives for one step recorded as the loop's is. Methods keep their `this`.
 */
export function recordedPolicy<P extends PolicyLike>(
  record: RecordStep,
  policy: P | undefined,
  token: string,
  calls: StepCount,
): P {
  const bound = <F>(method: F | undefined) =>
    typeof method === "function" ? (method.bind(policy) as F) : undefined;
  const executeTool = bound(policy?.executeTool) as
    | ((args: ExecuteArgs) => Promise<unknown>)
    | undefined;
  const stepped: PolicyLike = { executeTool: recordedExecution(record, executeTool, token) };
  const decideToolCall = bound(policy?.decideToolCall);
  const endsRun = bound(policy?.endsRun);
  const prepareStep = bound(policy?.prepareStep);
  if (decideToolCall) stepped.decideToolCall = decideToolCall;
  if (endsRun) stepped.endsRun = endsRun;
  if (prepareStep) {
    stepped.prepareStep = async (args: never) => {
      const prepared = await prepareStep(args);
      if (typeof prepared !== "object" || prepared === null || Array.isArray(prepared))
        return prepared;
      const { provider } = prepared as { provider?: Provider };
      if (provider === undefined || typeof provider !== "object") return prepared;
      return { ...prepared, provider: recordedProvider(record, provider, calls) };
    };
  }
  return stepped as P;
}

/** The loop's options, as far as a recorded run changes them. */
interface LoopOptionsLike {
  provider: Provider;
  policy?: PolicyLike | undefined;
  onEvent?: ((event: LoopEvent) => unknown) | undefined;
}

/**
 * The loop options of one execution of a recorded run: its model calls and tool executions as
 * the engine's steps (with a token drawn now, for `recordedExecution`), tools one at a time (so a
 * replay meets its steps in the order they were recorded), the state trusted (it never leaves
 * the run) and replayable (the engine's replay is the only one), and each event numbered from 1
 * for `onEvent`: a replay numbers its events the same.
 */
export function recordedLoopOptions<O extends LoopOptionsLike>(
  loop: O,
  record: RecordStep,
  onEvent: ((event: LoopEvent, seq: number) => void) | undefined,
): O {
  const token = crypto.randomUUID();
  const calls: StepCount = { count: 0 };
  let seq = 0;
  return {
    ...loop,
    provider: recordedProvider(record, loop.provider, calls),
    policy: recordedPolicy(record, loop.policy, token, calls),
    maxParallelToolCalls: 1,
    trustState: true,
    allowReplay: true,
    onEvent: (event: LoopEvent) => {
      seq++;
      loop.onEvent?.(event);
      onEvent?.(event, seq);
    },
  };
}
