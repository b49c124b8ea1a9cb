import type { AssistantPart, Message, ToolSpec, Usage } from "./messages.js";

/** Sampling settings passed through to the provider; adapters map what their API supports. */
export interface ModelSettings {
  temperature?: number | undefined;
  topP?: number | undefined;
  maxOutputTokens?: number | undefined;
  stopSequences?: string[] | undefined;
  seed?: number | undefined;
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
  /**
   * Asks for the final answer as JSON matching `schema` (structured output, mode "native").
   * Set only for providers with `supportsNativeOutput`; adapters map it to their API's own
   * field (OpenAI `response_format` / `text.format`, Anthropic `output_config.format`,
   * Gemini `responseJsonSchema`).
   */
  responseFormat?: ResponseFormat;
}

/** The JSON a model's final answer must be (`ModelRequest.responseFormat`). */
export interface ResponseFormat {
  type: "json";
  /** JSON Schema of the answer; an object at the top. */
  schema: Record<string, unknown>;
  /** A name for the schema (OpenAI requires one). */
  name: string;
  description?: string;
}

/**
 * Why the model stopped. `content-filter` is also a refusal (the model declined: OpenAI's
 * `refusal`, Anthropic's `stop_reason: "refusal"`), its words in the text. A response cut by
 * `length` or `content-filter` runs none of its tool calls.
 */
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
  /**
   * Aborted when the run is aborted or the model call times out. The loop's options make the
   * run's signal when it is first read (a spread reads it): a provider that never reads it
   * costs the run none.
   */
  signal?: AbortSignal;
  /** The run this call belongs to (a resumed run keeps its id): fakes and cassettes count per run. */
  runId?: string;
  /** The 0-based step of that run. */
  step?: number;
}

/**
 * A model the loop can call: a plain object with `generate` and, when it can stream, `stream`.
 * Errors it throws reach the caller of `run()` unchanged.
 */
export interface Provider {
  readonly name: string;
  readonly model: string;
  /** The provider maps `ModelRequest.responseFormat` (structured output's "native" mode, its default here). */
  readonly supportsNativeOutput?: boolean;
  generate(request: ModelRequest, options: ProviderCallOptions): Promise<ModelResponse>;
  stream?(request: ModelRequest, options: ProviderCallOptions): AsyncIterable<ModelStreamPart>;
}
