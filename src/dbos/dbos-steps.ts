import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  type LoopPolicy,
  type ModelStreamPart,
  type Provider,
  RetryError,
  ToolFailureError,
} from "tollgate";
import { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";

/** How a tool's call ended, as a DBOS step records it: data only, the same on every replay. */
type RecordedOutcome =
  | { kind: "ok"; output: unknown }
  | { kind: "error"; message: string; retry: boolean }
  | { kind: "unknown" };

/**
 * The loop's provider, each model call a DBOS step: a recovered run gets the recorded answer
 * instead of calling the model again. A streaming provider's parts are collected inside the step
 * and handed to the loop once the step is recorded (so a replay yields the same parts).
 * `calls` counts the execution's model calls, across every provider it wraps (step names).
 */
export function steppedProvider(provider: Provider, calls: { count: number }): Provider {
  const name = () => `tollgate.model:${calls.count++}`;
  const stepped: Provider = {
    name: provider.name,
    model: provider.model,
    async generate(request, options) {
      const response = await DBOS.runStep(() => provider.generate(request, options), {
        name: name(),
      });
      const { raw: _raw, ...recorded } = response;
      return recorded;
    },
  };
  const stream = provider.stream?.bind(provider);
  if (stream === undefined) return stepped;
  return {
    ...stepped,
    async *stream(request, options) {
      const parts = await DBOS.runStep(
        async () => {
          const collected: ModelStreamPart[] = [];
          for await (const part of stream(request, options)) {
            if (part.type === "finish") {
              const { raw: _raw, ...finish } = part;
              collected.push(finish);
            } else collected.push(part);
          }
          return collected;
        },
        { name: name() },
      );
      yield* parts;
    },
  };
}

/**
 * The policy's `executeTool` (or the tool's own `execute`) inside DBOS steps. A settled call
 * replays its recorded outcome and never runs again. A call the crash interrupted runs again
 * when its tool is `idempotent`; otherwise it settles as "outcome unknown", never run twice:
 * before it starts, a step records a token drawn by this execution of the workflow, and a tool
 * step that finds another execution's token recorded knows the tool may have started there.
 */
export function steppedExecution<Deps>(
  executeTool: LoopPolicy<Deps>["executeTool"],
  executionToken: string,
): NonNullable<LoopPolicy<Deps>["executeTool"]> {
  return async (args) => {
    const { call, tool } = args;
    const run = async (): Promise<unknown> =>
      executeTool ? executeTool(args) : tool.execute!(args.args as never, args.ctx);
    let thrownHere: unknown;
    const settle = async (): Promise<RecordedOutcome> => {
      try {
        return { kind: "ok", output: await run() };
      } catch (error) {
        thrownHere = error;
        const message = error instanceof Error ? error.message : String(error);
        return { kind: "error", message, retry: error instanceof RetryError };
      }
    };
    let outcome: RecordedOutcome;
    if (tool.idempotent) {
      outcome = await DBOS.runStep(settle, { name: `tollgate.tool:${call.id}` });
    } else {
      const intent = await DBOS.runStep(async () => executionToken, {
        name: `tollgate.intent:${call.id}`,
      });
      outcome = await DBOS.runStep(
        async (): Promise<RecordedOutcome> =>
          intent === executionToken ? settle() : { kind: "unknown" },
        { name: `tollgate.tool:${call.id}` },
      );
    }
    switch (outcome.kind) {
      case "ok":
        return outcome.output;
      case "unknown":
        throw new ToolFailureError(OUTCOME_UNKNOWN, { outcomeUnknown: true });
      case "error":
        // In the execution that ran the tool, its own error (a tool-error event with its stack);
        // on a replay, the recorded failure, which the model reads the same.
        if (thrownHere !== undefined) throw thrownHere;
        throw outcome.retry
          ? new RetryError(outcome.message)
          : new ToolFailureError(outcome.message);
    }
  };
}

/**
 * The user's policy with DBOS's steps in it: `executeTool` as `steppedExecution`, and a
 * provider `prepareStep` gives for one step wrapped as the loop's is. Methods keep their `this`.
 */
export function steppedPolicy<Deps>(
  policy: LoopPolicy<Deps> | undefined,
  executionToken: string,
  calls: { count: number },
): LoopPolicy<Deps> {
  const executeTool = policy?.executeTool;
  const stepped: LoopPolicy<Deps> = {
    executeTool: steppedExecution(
      executeTool && ((args) => executeTool.call(policy, args)),
      executionToken,
    ),
  };
  if (policy?.decideToolCall) stepped.decideToolCall = policy.decideToolCall.bind(policy);
  if (policy?.endsRun) stepped.endsRun = policy.endsRun.bind(policy);
  const prepareStep = policy?.prepareStep;
  if (prepareStep) {
    stepped.prepareStep = async (args) => {
      const prepared = await prepareStep.call(policy, args);
      if (typeof prepared !== "object" || prepared === null || Array.isArray(prepared))
        return prepared;
      const step = prepared as { provider?: Provider };
      if (step.provider === undefined || typeof step.provider !== "object") return prepared;
      return { ...prepared, provider: steppedProvider(step.provider, calls) } as typeof prepared;
    };
  }
  return stepped;
}
