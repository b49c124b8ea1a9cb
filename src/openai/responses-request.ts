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
import { decodeReasoningSignature } from "./reasoning-signature.js";
import { isStrictSchema } from "./strict-schema.js";

type InputItem = Record<string, unknown>;

/** File name extensions for file bytes sent without a filename (OpenAI reads the type from it). */
const EXTENSIONS: Record<string, string> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/csv": "csv",
  "text/html": "html",
  "application/json": "json",
};

/**
 * A user or tool part as a Responses content item: `input_text`, `input_image` (an http(s) or
 * data URL, `detail: "auto"`), or `input_file` (`file_url`, or `file_data` with a filename).
 */
function inputPart(provider: string, part: UserPart): InputItem {
  if (part.type === "text") return { type: "input_text", text: part.text };
  const media = mediaOf(provider, part);
  if (part.type === "image") {
    return { type: "input_image", image_url: mediaUrl(media), detail: "auto" };
  }
  if (media.kind === "url") return { type: "input_file", file_url: media.url };
  const extension = EXTENSIONS[media.mediaType.toLowerCase()];
  const filename = part.filename ?? (extension && `file.${extension}`);
  if (!filename) {
    throw cannotCarry(
      provider,
      `a ${media.mediaType} file without a filename (the Responses API reads a file's type from its name); give the file part a filename`,
    );
  }
  return { type: "input_file", filename, file_data: mediaUrl(media) };
}

/** A tool result's output: its text, or its content parts as input items. */
const toolOutput = (provider: string, result: ToolResult): string | InputItem[] =>
  result.content ? result.content.map((part) => inputPart(provider, part)) : resultText(result);

/**
 * Maps the transcript to Responses API input items, in order: user messages as text or content
 * parts, assistant text as messages, reasoning parts back as `reasoning` items (only those whose
 * signature this adapter wrote), tool calls as `function_call` items and results as
 * `function_call_output` items (their output text, or content parts), correlated by `call_id`.
 */
export function responsesInput(messages: Message[], provider = "openai"): InputItem[] {
  const items: InputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const { content } = message;
      items.push({
        role: "user",
        content:
          typeof content === "string" ? content : content.map((part) => inputPart(provider, part)),
      });
    } else if (message.role === "tool") {
      for (const result of message.results) {
        items.push({
          type: "function_call_output",
          call_id: result.toolCallId,
          output: toolOutput(provider, result),
        });
      }
    } else {
      for (const part of message.parts) {
        if (part.type === "text") {
          if (part.text) items.push({ role: "assistant", content: part.text });
        } else if (part.type === "tool-call") {
          items.push({
            type: "function_call",
            call_id: part.id,
            name: part.name,
            arguments: part.args,
          });
        } else {
          const ref = decodeReasoningSignature(part.signature);
          if (!ref) continue;
          const summary = part.text ? [{ type: "summary_text", text: part.text }] : [];
          items.push({ type: "reasoning", ...ref, summary });
        }
      }
    }
  }
  return items;
}

const responsesTool = (tool: ToolSpec) => ({
  type: "function",
  name: tool.name,
  description: tool.description,
  parameters: tool.inputSchema,
  strict: false,
});

const responsesToolChoice = (choice: NonNullable<ModelRequest["toolChoice"]>) =>
  typeof choice === "string" ? choice : { type: "function", name: choice.name };

/**
 * The Responses API request body. `system` becomes `instructions`; `stopSequences` and `seed`
 * have no Responses equivalent and are not sent; other settings keys (`reasoning`, `include`,
 * `store`, `text`…) are copied into the body.
 */
export function responsesBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
  provider = "openai",
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, extra } = splitSettings(request.settings);
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(responsesTool),
    ...(request.toolChoice && { tool_choice: responsesToolChoice(request.toolChoice) }),
  };
  return {
    model,
    ...(request.system && { instructions: request.system }),
    input: responsesInput(request.messages, provider),
    ...tools,
    ...defined({ temperature, top_p: topP, max_output_tokens: maxOutputTokens }),
    ...(request.responseFormat && { text: { format: responsesFormat(request.responseFormat) } }),
    ...extra,
    ...(stream && { stream: true }),
  };
}

/** Structured output: `text.format`, a `json_schema`, strict when the schema allows it. */
function responsesFormat(format: ResponseFormat): Record<string, unknown> {
  const { name, description, schema } = format;
  return {
    type: "json_schema",
    name,
    ...(description !== undefined && { description }),
    schema,
    strict: isStrictSchema(schema),
  };
}
