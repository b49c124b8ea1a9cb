import type {
  Message,
  ModelRequest,
  ResponseFormat,
  ToolResult,
  ToolSpec,
  UserPart,
} from "tollgate";
import { cannotCarry, mediaOf } from "../http/media-parts.js";
import { defined, splitSettings } from "../http/settings.js";
import { resultText } from "../http/tool-values.js";
import { mediaUrl } from "../util/media.js";
import { isStrictSchema } from "./strict-schema.js";

/** Which body field carries `maxOutputTokens`: OpenAI's current one, or the older one local servers read. */
export type MaxTokensParam = "max_completion_tokens" | "max_tokens";

/** A Chat Completions message as sent. */
type ChatMessage = Record<string, unknown> & { role: string };

/**
 * A user part as a Chat Completions content part: `text`, `image_url` (an http(s) or data URL),
 * or `file` with `file_data` (a data URL; Chat Completions takes PDF files only, and no file URLs).
 */
function chatPart(provider: string, part: UserPart): Record<string, unknown> {
  if (part.type === "text") return { type: "text", text: part.text };
  const media = mediaOf(provider, part);
  if (part.type === "image") return { type: "image_url", image_url: { url: mediaUrl(media) } };
  if (media.kind === "url") {
    throw cannotCarry(
      provider,
      "a file by URL in Chat Completions (it takes file bytes only); send the bytes, or use openAIResponses",
    );
  }
  if (media.mediaType.toLowerCase() !== "application/pdf") {
    throw cannotCarry(
      provider,
      `a ${media.mediaType} file in Chat Completions (PDF only); send its text as a text part, or use openAIResponses`,
    );
  }
  const filename = part.filename ?? "document.pdf";
  return { type: "file", file: { filename, file_data: mediaUrl(media) } };
}

/** A tool result's text; Chat Completions tool messages carry no images. */
function toolText(provider: string, result: ToolResult): string {
  if (result.content?.some((part) => part.type === "image")) {
    throw cannotCarry(
      provider,
      `an image in a tool result (tool ${result.toolName}): Chat Completions tool messages take text only; use openAIResponses`,
    );
  }
  return resultText(result);
}

/**
 * Maps the transcript to Chat Completions messages: the system prompt first, a user message as
 * text or content parts, an assistant message's text and tool calls in one message (its
 * reasoning is not sent: Chat Completions takes none back), then one `tool` message per result.
 * A part Chat Completions cannot carry is a `ProviderError` (`provider` names it).
 */
export function chatMessages(
  system: string | undefined,
  messages: Message[],
  provider = "openai",
): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") {
      const { content } = message;
      out.push({
        role: "user",
        content:
          typeof content === "string" ? content : content.map((part) => chatPart(provider, part)),
      });
    } else if (message.role === "tool") {
      for (const result of message.results) {
        const content = toolText(provider, result);
        out.push({ role: "tool", tool_call_id: result.toolCallId, content });
      }
    } else {
      let text = "";
      const toolCalls = [];
      for (const part of message.parts) {
        if (part.type === "text") text += part.text;
        else if (part.type === "tool-call") {
          toolCalls.push({
            id: part.id,
            type: "function",
            function: { name: part.name, arguments: part.args },
          });
        }
      }
      out.push({
        role: "assistant",
        content: text === "" && toolCalls.length > 0 ? null : text,
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      });
    }
  }
  return out;
}

const chatTool = (tool: ToolSpec) => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
});

const chatToolChoice = (choice: NonNullable<ModelRequest["toolChoice"]>) =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };

/**
 * The Chat Completions request body. Portable settings are mapped (`stopSequences` → `stop`,
 * `maxOutputTokens` → `maxTokensParam`); every other settings key is copied into the body.
 */
export function chatBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
  maxTokensParam: MaxTokensParam,
  provider = "openai",
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, stopSequences, seed, extra } = splitSettings(
    request.settings,
  );
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(chatTool),
    ...(request.toolChoice && { tool_choice: chatToolChoice(request.toolChoice) }),
  };
  return {
    model,
    messages: chatMessages(request.system, request.messages, provider),
    ...tools,
    ...defined({
      temperature,
      top_p: topP,
      [maxTokensParam]: maxOutputTokens,
      stop: stopSequences,
      seed,
    }),
    ...(request.responseFormat && { response_format: chatResponseFormat(request.responseFormat) }),
    ...extra,
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  };
}

/** Structured output: a `json_schema` response format, strict when the schema allows it. */
function chatResponseFormat(format: ResponseFormat): Record<string, unknown> {
  const { name, description, schema } = format;
  return {
    type: "json_schema",
    json_schema: {
      name,
      ...(description !== undefined && { description }),
      schema,
      strict: isStrictSchema(schema),
    },
  };
}
