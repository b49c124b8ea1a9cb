import type {
  AssistantPart,
  Message,
  ModelRequest,
  ToolContentPart,
  ToolResult,
  UserPart,
} from "tollgate";
import { mediaOf } from "../http/media-parts.js";
import { defined } from "../http/settings.js";
import type {
  AISDKCallOptions,
  AISDKFileData,
  AISDKFilePart,
  AISDKJSONValue,
  AISDKMessage,
  AISDKTextPart,
  AISDKToolResultOutput,
} from "./language-model.js";
import { reasoningOptions } from "./reasoning-metadata.js";
import { checkSettings } from "./settings-check.js";

/** The file data of an image or a file part: a URL the provider fetches, or base64 bytes. */
function fileOf(provider: string, part: Exclude<UserPart | ToolContentPart, { type: "text" }>) {
  const media = mediaOf(provider, part);
  const data: AISDKFileData =
    media.kind === "url"
      ? { type: "url", url: new URL(media.url) }
      : { type: "data", data: media.base64 };
  // The AI SDK takes the top-level type ("image") when the full one is not known.
  const mediaType = media.mediaType ?? (part.type === "image" ? "image" : part.mediaType);
  return { data, mediaType };
}

function userPart(provider: string, part: UserPart): AISDKTextPart | AISDKFilePart {
  if (part.type === "text") return { type: "text", text: part.text };
  const file: AISDKFilePart = { type: "file", ...fileOf(provider, part) };
  if (part.type === "file" && part.filename !== undefined) file.filename = part.filename;
  return file;
}

/**
 * A tool call's args as the AI SDK's prompt takes them: the parsed JSON value. Args that are not
 * JSON (the model sent broken JSON, and the gate refused the call) go as the raw text, as the AI
 * SDK itself sends an invalid call back.
 */
function inputOf(args: string): unknown {
  if (args === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function assistantPart(part: AssistantPart) {
  if (part.type === "text") return { type: "text" as const, text: part.text };
  if (part.type === "reasoning") {
    const providerOptions = reasoningOptions(part.signature);
    return providerOptions === undefined
      ? { type: "reasoning" as const, text: part.text }
      : { type: "reasoning" as const, text: part.text, providerOptions };
  }
  return {
    type: "tool-call" as const,
    toolCallId: part.id,
    toolName: part.name,
    input: inputOf(part.args),
  };
}

/**
 * A tool result as the model sees it: an error (a refusal, a denial, a failure: its text), the
 * parts of `toolContent(...)`, text, or any other output as JSON.
 */
function toolOutput(provider: string, result: ToolResult): AISDKToolResultOutput {
  if (result.isError) {
    const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
    return { type: "error-text", value: text ?? "" };
  }
  if (result.content !== undefined) {
    return {
      type: "content",
      value: result.content.map((part) =>
        part.type === "text"
          ? { type: "text" as const, text: part.text }
          : { type: "file" as const, ...fileOf(provider, part) },
      ),
    };
  }
  if (typeof result.output === "string") return { type: "text", value: result.output };
  return {
    type: "json",
    value: (JSON.parse(JSON.stringify(result.output ?? null)) ?? null) as AISDKJSONValue,
  };
}

/** The transcript as an AI SDK prompt: the system prompt first, then one message per message. */
export function promptOf(
  provider: string,
  system: string | undefined,
  messages: Message[],
): AISDKMessage[] {
  const prompt: AISDKMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") {
      const { content } = message;
      prompt.push({
        role: "user",
        content:
          typeof content === "string"
            ? [{ type: "text", text: content }]
            : content.map((part) => userPart(provider, part)),
      });
    } else if (message.role === "assistant") {
      prompt.push({ role: "assistant", content: message.parts.map(assistantPart) });
    } else {
      prompt.push({
        role: "tool",
        content: message.results.map((result) => ({
          type: "tool-result",
          toolCallId: result.toolCallId,
          toolName: result.toolName,
          output: toolOutput(provider, result),
        })),
      });
    }
  }
  return prompt;
}

/**
 * The options of one model call. The portable settings map to the AI SDK's own; `topK`,
 * `presencePenalty`, `frequencyPenalty`, `reasoning` (V4 models), `providerOptions` and
 * `headers` pass as they are once `checkSettings` has checked them; any other settings key is a
 * `ProviderError` (the AI SDK has no request body to copy it into: put provider-specific
 * options in `providerOptions`).
 */
export function callOptions(
  provider: string,
  version: "v3" | "v4",
  request: ModelRequest,
  signal: AbortSignal | undefined,
): AISDKCallOptions {
  const { temperature, topP, maxOutputTokens, stopSequences, seed, ...rest } =
    request.settings ?? {};
  checkSettings(provider, version, rest);
  const options = {
    prompt: promptOf(provider, request.system, request.messages),
    ...defined({ temperature, topP, maxOutputTokens, stopSequences, seed, ...rest }),
  } as AISDKCallOptions;
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
  }
  const choice = request.toolChoice;
  if (choice !== undefined) {
    options.toolChoice =
      typeof choice === "string" ? { type: choice } : { type: "tool", toolName: choice.name };
  }
  if (request.responseFormat) {
    const { schema, name, description } = request.responseFormat;
    options.responseFormat = {
      type: "json",
      schema,
      name,
      ...(description !== undefined && { description }),
    };
  }
  if (signal) options.abortSignal = signal;
  return options;
}
