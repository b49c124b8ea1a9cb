/**
 * The parts of the AI SDK's language model specification (`LanguageModelV4` of
 * `@ai-sdk/provider`, and `LanguageModelV3` with the same shape) that `fromAISDK` uses, written
 * out here so that tollgate's types need no AI SDK package. A real model from any `@ai-sdk/*`
 * provider package is assignable to `AISDKLanguageModel`. What a model answers is typed
 * `unknown` and checked part by part when it arrives.
 */

/** File data in a prompt: bytes or base64, or a URL. */
export type AISDKFileData = { type: "data"; data: Uint8Array | string } | { type: "url"; url: URL };

/** A text part of a prompt message. */
export interface AISDKTextPart {
  type: "text";
  text: string;
}

/** A file (an image, a PDF…) in a prompt message. */
export interface AISDKFilePart {
  type: "file";
  data: AISDKFileData;
  mediaType: string;
  filename?: string;
}

/** Reasoning in an assistant message; `providerOptions` carries what the provider signed. */
export interface AISDKReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** A tool call in an assistant message; `input` is the arguments as a JSON value. */
export interface AISDKToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A JSON value, as the AI SDK types one. */
export type AISDKJSONValue =
  | null
  | string
  | number
  | boolean
  | AISDKJSONValue[]
  | { [key: string]: AISDKJSONValue | undefined };

/** What a tool answered, as the model is shown it. */
export type AISDKToolResultOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: AISDKJSONValue }
  | { type: "error-text"; value: string }
  | {
      type: "content";
      value: Array<AISDKTextPart | { type: "file"; data: AISDKFileData; mediaType: string }>;
    };

/** A tool result in a `tool` message. */
export interface AISDKToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AISDKToolResultOutput;
}

/** One message of a prompt. */
export type AISDKMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: Array<AISDKTextPart | AISDKFilePart> }
  | {
      role: "assistant";
      content: Array<AISDKTextPart | AISDKReasoningPart | AISDKToolCallPart>;
    }
  | { role: "tool"; content: AISDKToolResultPart[] };

/** A function tool the model may call, with its JSON Schema. */
export interface AISDKFunctionTool {
  type: "function";
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** How the model may pick tools. */
export type AISDKToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; toolName: string };

/** The reasoning effort a V4 model is asked for. */
export type AISDKReasoningEffort =
  | "provider-default"
  | "none"
  | "minimal"
  | "low"
  | "medium"
  | "high"
  | "xhigh"
  | "max";

/** The options of one `doGenerate` / `doStream` call, as `fromAISDK` sends them. */
export interface AISDKCallOptions {
  prompt: AISDKMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseFormat?:
    | { type: "text" }
    | { type: "json"; schema?: Record<string, unknown>; name?: string; description?: string };
  seed?: number;
  tools?: AISDKFunctionTool[];
  toolChoice?: AISDKToolChoice;
  abortSignal?: AbortSignal;
  headers?: Record<string, string | undefined>;
  reasoning?: AISDKReasoningEffort;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/**
 * An AI SDK language model (`LanguageModelV4`, or `LanguageModelV3`): what every `@ai-sdk/*`
 * provider package returns, e.g. `openai("gpt-4o")` or `anthropic("claude-sonnet-4-5")`.
 */
export interface AISDKLanguageModel {
  readonly specificationVersion: "v4" | "v3";
  /** The provider's id, e.g. `"openai.chat"`. */
  readonly provider: string;
  /** The model's id, e.g. `"gpt-4o"`. */
  readonly modelId: string;
  /**
   * Typed loosely on purpose (tollgate sends `AISDKCallOptions`; each provider package types
   * its own options), so that every package's model is assignable here; what comes back is
   * checked when it arrives.
   */
  doGenerate(options: never): PromiseLike<unknown>;
  /** As `doGenerate`: answers `{ stream: ReadableStream<part> }`. */
  doStream(options: never): PromiseLike<unknown>;
}
