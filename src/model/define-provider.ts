import { ProviderError } from "../errors.js";
import type { ModelResponse, ModelStreamPart, Provider } from "../types/provider.js";
import { checkResponse } from "./provider-parts.js";
import { collectResponse } from "./response-assembler.js";

/** What `defineProvider` takes: a name, a model, and at least one of `generate` and `stream`. */
export interface ProviderDefinition {
  name: string;
  model: string;
  generate?: Provider["generate"];
  stream?: Provider["stream"];
  /** The provider maps `ModelRequest.responseFormat` (see `Provider.supportsNativeOutput`). */
  supportsNativeOutput?: boolean | undefined;
}

/**
 * Builds a `Provider` from `generate` and/or `stream`, deriving the missing one: `generate`
 * collects the stream; `stream` replays the generated response as one burst of parts.
 *
 * @example
 * const echo = defineProvider({
 *   name: "echo", model: "echo-1",
 *   generate: async (req) => ({ parts: [{ type: "text", text: "hi" }], finishReason: "stop", usage }),
 * });
 */
export function defineProvider(definition: ProviderDefinition): Provider {
  const { name, model, generate, stream } = definition;
  const native = definition.supportsNativeOutput === true && { supportsNativeOutput: true };
  if (typeof name !== "string" || name === "") {
    throw new TypeError("defineProvider: `name` must be a non-empty string");
  }
  if (typeof model !== "string") throw new TypeError("defineProvider: `model` must be a string");
  if (stream) {
    return {
      name,
      model,
      ...native,
      stream,
      generate: generate ?? ((request, options) => collectResponse(stream(request, options), name)),
    };
  }
  if (generate) {
    return {
      name,
      model,
      ...native,
      generate,
      stream: async function* (request, options) {
        yield* responseToParts(name, await generate(request, options));
      },
    };
  }
  throw new TypeError("defineProvider: give `generate`, `stream`, or both");
}

/**
 * The stream parts that replay a whole response: one part per response part, then `finish`.
 * A response that is not a `ModelResponse`, or a part of a type a response has not, is a
 * `ProviderError` naming the provider (the parts' fields are checked as stream parts later).
 */
export function responseToParts(provider: string, response: ModelResponse): ModelStreamPart[] {
  checkResponse(provider, response);
  const parts: ModelStreamPart[] = [];
  for (const [index, part] of response.parts.entries()) {
    const type = (part as { type?: unknown } | null)?.type;
    if (type !== "text" && type !== "reasoning" && type !== "tool-call") {
      throw new ProviderError(
        `provider "${provider}" answered generate() with parts[${index}] of type ${JSON.stringify(type) ?? "undefined"}; a response part is { type: "text" | "reasoning" | "tool-call", ... }`,
        { retryable: false, provider },
      );
    }
    if (part.type === "text") parts.push({ type: "text-delta", text: part.text });
    else if (part.type === "reasoning") {
      parts.push(
        part.signature === undefined
          ? { type: "reasoning-delta", text: part.text }
          : { type: "reasoning-delta", text: part.text, signature: part.signature },
      );
    } else parts.push({ type: "tool-call", id: part.id, name: part.name, args: part.args });
  }
  parts.push({
    type: "finish",
    finishReason: response.finishReason,
    usage: response.usage,
    raw: response.raw,
  });
  return parts;
}
