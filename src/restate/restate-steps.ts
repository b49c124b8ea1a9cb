import type { ObjectContext } from "@restatedev/restate-sdk";
import {
  type LoopPolicy,
  type ModelResponse,
  type ModelStreamPart,
  type Provider,
  RetryError,
  ToolFailureError,
} from "tollgate";
import { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";

/** How a model call or a tool's call ended, as a `ctx.run` journals it: data only, the same on every replay. */
type RecordedOutcome<T> =
  | { kind: "ok"; output: T }
  | { kind: "error"; message: string; retry: boolean }
  | { kind: "unknown" };

/**
 * Runs `work` inside `ctx.run(name)`, its failure journaled as data (a thrown error in a
 * `ctx.run` would make Restate retry the attempt): the attempt that ran it rethrows its own
 * error, a replay the recorded one.
 */
async function journaled<T>(ctx: ObjectContext, name: string, work: () => Promise<T>): Promise<T> {
  let thrownHere: unknown;
  const outcome = await ctx.run(name, async (): Promise<RecordedOutcome<T>> => {
    try {
      return { kind: "ok", output: await work() };
    } catch (error) {
      thrownHere = error;
      return failure(error);
    }
  });
  if (outcome.kind === "ok") return outcome.output;
  if (thrownHere !== undefined) throw thrownHere;
  if (outcome.kind === "unknown")
    throw new ToolFailureError(OUTCOME_UNKNOWN, { outcomeUnknown: true });
  throw outcome.retry ? new RetryError(outcome.message) : new Error(outcome.message);
}

function failure(error: unknown): { kind: "error"; message: string; retry: boolean } {
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "error", message, retry: error instanceof RetryError };
}

/**
 * The loop's provider, each model call a `ctx.run("tollgate.model:<n>")`: a replayed attempt
 * gets the journaled answer (without `raw`) instead of calling the model again. A streaming
 * provider's parts are collected inside the run and handed to the loop once it is journaled.
 */
export function journaledProvider(ctx: ObjectContext, provider: Provider): Provider {
  let calls = 0;
  const name = () => `tollgate.model:${calls++}`;
  const stepped: Provider = {
    name: provider.name,
    model: provider.model,
    generate: (request, options) =>
      journaled(ctx, name(), async (): Promise<ModelResponse> => {
        const { raw: _raw, ...recorded } = await provider.generate(request, options);
        return recorded;
      }),
  };
  const stream = provider.stream?.bind(provider);
  if (stream === undefined) return stepped;
  return {
    ...stepped,
    async *stream(request, options) {
      const parts = await journaled(ctx, name(), async () => {
        const collected: ModelStreamPart[] = [];
        for await (const part of stream(request, options)) {
          if (part.type === "finish") {
            const { raw: _raw, ...finish } = part;
            collected.push(finish);
          } else collected.push(part);
        }
        return collected;
      });
      yield* parts;
    },
  };
}

/**
 * The policy's `executeTool` (or the tool's own `execute`) inside `ctx.run`s. A settled call
 * replays its journaled outcome and never runs again. A call a crash interrupted runs again
 * when its tool is `idempotent`; otherwise it settles as "outcome unknown", never run twice:
 * before it starts, `ctx.run("tollgate.intent:<id>")` journals a token drawn by this attempt
 * (not journaled itself), and a tool run that finds another attempt's token knows the tool may
 * have started there. Needs the endpoint served over HTTP/2 (one attempt per stream).
 */
export function journaledExecution<Deps>(
  ctx: ObjectContext,
  executeTool: LoopPolicy<Deps>["executeTool"],
  attemptToken: string,
): NonNullable<LoopPolicy<Deps>["executeTool"]> {
  return async (args) => {
    const { call, tool } = args;
    const run = async (): Promise<unknown> =>
      executeTool ? executeTool(args) : tool.execute!(args.args as never, args.ctx);
    const name = `tollgate.tool:${call.id}`;
    if (tool.idempotent) return journaled(ctx, name, run);
    const intent = await ctx.run(`tollgate.intent:${call.id}`, async () => attemptToken);
    let thrownHere: unknown;
    const outcome = await ctx.run(name, async (): Promise<RecordedOutcome<unknown>> => {
      if (intent !== attemptToken) return { kind: "unknown" };
      try {
        return { kind: "ok", output: await run() };
      } catch (error) {
        thrownHere = error;
        return failure(error);
      }
    });
    switch (outcome.kind) {
      case "ok":
        return outcome.output;
      case "unknown":
        throw new ToolFailureError(OUTCOME_UNKNOWN, { outcomeUnknown: true });
      case "error":
        // In the attempt that ran the tool, its own error; on a replay, the journaled failure.
        if (thrownHere !== undefined) throw thrownHere;
        throw outcome.retry
          ? new RetryError(outcome.message)
          : new ToolFailureError(outcome.message);
    }
  };
}
