import { defineProvider, type ModelStreamPart, type Provider, ProviderError } from "tollgate";
import { isPlainObject } from "../util/option-keys.js";
import { shortForm } from "../util/policy-call.js";
import { callOptions } from "./call-options.js";
import type { AISDKLanguageModel } from "./language-model.js";
import { errorOf } from "./model-errors.js";
import { responseOf, unreadable } from "./model-result.js";
import { StreamMapper } from "./stream-parts.js";

/** Options of `fromAISDK`. */
export interface FromAISDKOptions {
  /** The provider's name in events and errors. Default: the model's `provider` (e.g. "openai.chat"). */
  name?: string | undefined;
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
 * the `APICallError`'s status, body and `isRetryable`. The AI SDK's retries are `generateText`'s,
 * not the model's: a failed call is not tried again here.
 *
 * @example
 * import { openai } from "@ai-sdk/openai";
 * const loop = new AgentLoop({ provider: fromAISDK(openai("gpt-4o")), tools });
 */
export function fromAISDK(model: AISDKLanguageModel, options: FromAISDKOptions = {}): Provider {
  checkModel(model);
  if (
    !isPlainObject(options) ||
    (options.name !== undefined && (typeof options.name !== "string" || options.name === ""))
  ) {
    throw new TypeError("fromAISDK: options must be { name?: a non-empty string }");
  }
  const name = options.name ?? model.provider;
  const version = model.specificationVersion;
  return defineProvider({
    name,
    model: model.modelId,
    supportsNativeOutput: true,
    generate: async (request, { signal }) => {
      const call = callOptions(name, version, request, signal);
      let result: unknown;
      try {
        result = await model.doGenerate(call as never);
      } catch (error) {
        throw failure(name, error, signal);
      }
      return responseOf(name, result);
    },
    stream: async function* (request, { signal }): AsyncGenerator<ModelStreamPart> {
      const call = callOptions(name, version, request, signal);
      let reader: ReadableStreamDefaultReader<unknown>;
      try {
        const result = await model.doStream(call as never);
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
