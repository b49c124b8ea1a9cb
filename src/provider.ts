import type { AssistantPart, Message, ToolSpec, Usage } from "./messages.js";
import { collectResponse } from "./response-assembler.js";

/** Sampling settings passed through to the provider; adapters map what their API supports. */
export interface ModelSettings {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  /** Anything else, passed to the provider as is (adapters document what they read). */
  [key: string]: unknown;
}

/** What the loop asks of a model for one step. */
export interface ModelRequest {
  system?: string;
  messages: Message[];
  tools: ToolSpec[];
  toolChoice?: "auto" | "required" | "none" | { name: string };
  settings?: ModelSettings;
}

/** Why the model stopped. */
export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "error" | "other";

/** One whole model response. Tool-call `args` are the JSON text as the model sent it. */
export interface ModelResponse {
  parts: AssistantPart[];
  finishReason: FinishReason;
  usage: Usage;
  /** The provider's own response, for debugging; never read by the loop. */
  raw?: unknown;
}

/** One piece of a streamed model response. Tool calls arrive as deltas keyed by `index`, or whole. */
export type ModelStreamPart =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string; signature?: string }
  | { type: "tool-call-delta"; index: number; id?: string; name?: string; argsDelta: string }
  | { type: "tool-call"; id: string; name: string; args: string }
  | { type: "finish"; finishReason: FinishReason; usage: Usage; raw?: unknown };

/** Options for one provider call. */
export interface ProviderCallOptions {
  signal?: AbortSignal;
}

/**
 * A model the loop can call: a plain object with `generate` and, when it can stream, `stream`.
 * Errors it throws reach the caller of `run()` unchanged.
 */
export interface Provider {
  readonly name: string;
  readonly model: string;
  generate(request: ModelRequest, options: ProviderCallOptions): Promise<ModelResponse>;
  stream?(request: ModelRequest, options: ProviderCallOptions): AsyncIterable<ModelStreamPart>;
}

/** What `defineProvider` takes: a name, a model, and at least one of `generate` and `stream`. */
export interface ProviderDefinition {
  name: string;
  model: string;
  generate?: Provider["generate"];
  stream?: Provider["stream"];
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
  if (typeof name !== "string" || name === "") {
    throw new TypeError("defineProvider: `name` must be a non-empty string");
  }
  if (typeof model !== "string") throw new TypeError("defineProvider: `model` must be a string");
  if (stream) {
    return {
      name,
      model,
      stream,
      generate: generate ?? ((request, options) => collectResponse(stream(request, options))),
    };
  }
  if (generate) {
    return {
      name,
      model,
      generate,
      stream: async function* (request, options) {
        yield* responseToParts(await generate(request, options));
      },
    };
  }
  throw new TypeError("defineProvider: give `generate`, `stream`, or both");
}

/** The stream parts that replay a whole response: one part per response part, then `finish`. */
export function responseToParts(response: ModelResponse): ModelStreamPart[] {
  const parts: ModelStreamPart[] = [];
  for (const part of response.parts) {
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
