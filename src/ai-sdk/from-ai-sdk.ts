import { defineProvider, type ModelStreamPart, type Provider, ProviderError } from "tollgate";
import { DEFAULT_MAX_RETRIES } from "../http/transport.js";
import { noNetworkRefusal } from "../util/no-network.js";
import { checkKeys } from "../util/option-keys.js";
import { shortForm } from "../util/policy-call.js";
import { isPlainObject, kindOf } from "../util/values.js";
import { callOptions } from "./call-options.js";
import type { AISDKLanguageModel } from "./language-model.js";
import { errorOf } from "./model-errors.js";
import { responseOf, unreadable } from "./model-result.js";
import { withRetries } from "./model-retries.js";
import { StreamMapper } from "./stream-parts.js";

/** Options of `fromAISDK`. */
export interface FromAISDKOptions {
  /** The provider's name in events and errors. Default: the model's `provider` (e.g. "openai.chat"). */
  name?: string | undefined;
  /**
   * How many times a failed call is tried again when the model's error says it may be (429,
   * 408, 409, a 5xx, a failed connection), waiting what the server's `Retry-After` asks (up to
   * a minute) or backing off (~0.5 s, 1 s, 2 s … 8 s). Default 2, as tollgate's own adapters.
   * A stream is retried only until it starts. 0: never retried.
   */
  maxRetries?: number | undefined;
}

/** Refuses unknown option keys (with a did-you-mean) and values of the wrong kind. */
function checkOptions(options: unknown): asserts options is FromAISDKOptions {
  checkKeys("fromAISDK", options, ["name", "maxRetries"], { retries: "maxRetries" });
  const { name, maxRetries } = options as Record<string, unknown>;
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    throw new TypeError(`fromAISDK: \`name\` must be a non-empty string, got ${kindOf(name)}`);
  }
  if (
    maxRetries !== undefined &&
    !(Number.isSafeInteger(maxRetries) && (maxRetries as number) >= 0)
  ) {
    throw new TypeError(
      `fromAISDK: \`maxRetries\` must be a whole number >= 0, got ${typeof maxRetries === "number" ? maxRetries : kindOf(maxRetries)}`,
    );
  }
}

/** Refuses anything that is not an AI SDK language model, V4 or V3, with what to give instead. */
function checkModel(model: unknown): asserts model is AISDKLanguageModel {
  const m = model as Partial<Record<keyof AISDKLanguageModel, unknown>> | null;
  const problem =
    typeof model !== "object" || model === null
      ? "it is not an object"
      : m?.specificationVersion !== "v4" && m?.specificationVersion !== "v3"
        ? `its specificationVersion is ${shortForm(m?.specificationVersion)}, not "v4" or "v3" (a model id string, an embedding or image model, or an older AI SDK's model)`
        : typeof m.provider !== "string" || typeof m.modelId !== "string"
          ? "it has no string `provider` and `modelId`"
          : typeof m.doGenerate !== "function" || typeof m.doStream !== "function"
            ? "it has no doGenerate() and doStream()"
            : undefined;
  if (problem !== undefined) {
    throw new TypeError(
      `fromAISDK: expected an AI SDK language model (LanguageModelV4 or V3, e.g. openai("gpt-4o") from @ai-sdk/openai), but ${problem}`,
    );
  }
}

/** The abort reason when the call was aborted, else the model's error as a `ProviderError`. */
const failure = (name: string, error: unknown, signal: AbortSignal | undefined): unknown =>
  signal?.aborted ? signal.reason : errorOf(name, error);

/**
 * Wraps an AI SDK language model (`LanguageModelV4` of ai@7, or `LanguageModelV3`) as a tollgate
 * `Provider`, so every `@ai-sdk/*` provider package drives tollgate's loop, gate included.
 * `generate` calls `doGenerate`, `stream` calls `doStream`. The transcript maps both ways (tool
 * calls' args are JSON text in tollgate and a JSON value in the AI SDK's prompt; a reasoning
 * part's provider metadata is kept as its `signature`), structured output's native mode maps to
 * `responseFormat`, and what the model throws or streams as an error is a `ProviderError` with
 * the `APICallError`'s status, body and `isRetryable` (and nothing of the request: no `cause`,
 * and anything shaped like an API key redacted). A stream the model did not finish (its finish
 * reason "interrupted" or "error") is a `ProviderError`, never a partial answer. The AI SDK's
 * own retries are `generateText`'s, which the loop does not use, so a retryable failure is
 * tried again here (`maxRetries`, with the native adapters' backoff and `Retry-After`).
 *
 * @example
 * import { openai } from "@ai-sdk/openai";
 * const loop = new AgentLoop({ provider: fromAISDK(openai("gpt-4o")), tools });
 */
export function fromAISDK(model: AISDKLanguageModel, options: FromAISDKOptions = {}): Provider {
  checkModel(model);
  checkOptions(options);
  const name = options.name ?? model.provider;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const version = model.specificationVersion;
  const offline = () => {
    const refusal = noNetworkRefusal(`fromAISDK(${model.provider} ${model.modelId})`);
    if (refusal !== undefined)
      throw new ProviderError(refusal, { retryable: false, provider: name });
  };
  return defineProvider({
    name,
    model: model.modelId,
    supportsNativeOutput: true,
    generate: async (request, { signal }) => {
      offline();
      const call = callOptions(name, version, request, signal);
      const result = await withRetries(name, maxRetries, signal, async () =>
        model.doGenerate(call as never),
      );
      return responseOf(name, result);
    },
    stream: async function* (request, { signal }): AsyncGenerator<ModelStreamPart> {
      offline();
      const call = callOptions(name, version, request, signal);
      let reader: ReadableStreamDefaultReader<unknown>;
      try {
        const result = await withRetries(name, maxRetries, signal, async () =>
          model.doStream(call as never),
        );
        const stream = isPlainObject(result) ? result.stream : undefined;
        if (!(stream instanceof ReadableStream)) {
          throw unreadable(
            name,
            "doStream() with something that is not { stream: ReadableStream }",
            result,
          );
        }
        reader = stream.getReader();
      } catch (error) {
        throw failure(name, error, signal);
      }
      const mapper = new StreamMapper(name);
      try {
        for (;;) {
          let next: ReadableStreamReadResult<unknown>;
          try {
            next = await reader.read();
          } catch (error) {
            throw failure(name, error, signal);
          }
          if (next.done) break;
          yield* mapper.map(next.value);
        }
      } finally {
        // Stops the model's request when the loop stops reading early (or on an error).
        reader.cancel().catch(() => {});
      }
      if (!mapper.done) {
        throw new ProviderError(
          `AI SDK model "${name}" ended its stream without a finish part (the answer may be cut)`,
          { retryable: true, provider: name },
        );
      }
    },
  });
}
