import type {
  AssistantPart,
  Message,
  ModelRequest,
  ToolResult,
  ToolSpec,
  UserPart,
} from "tollgate";
import { cannotCarry, mediaOf, textOfBase64 } from "../http/media-parts.js";
import { defined, splitSettings } from "../http/settings.js";
import { argsObject, resultText } from "../http/tool-values.js";
import { thinkingBlock } from "./thinking.js";

type Block = Record<string, unknown>;
type WireMessage = { role: "user" | "assistant"; content: Block[] };

function assistantBlocks(parts: AssistantPart[]): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else if (part.type === "tool-call") {
      blocks.push({ type: "tool_use", id: part.id, name: part.name, input: argsObject(part.args) });
    } else {
      const block = thinkingBlock(part);
      if (block) blocks.push(block);
    }
  }
  return blocks;
}

/** The image types the Messages API takes. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * A user or tool part as a content block: `text` (empty text left out), `image` (a `base64` or
 * `url` source), or `document`: a PDF (`base64` or `url`) or a `text/plain` file (a `text`
 * source), titled with its filename. Other types are a `ProviderError`.
 */
function userBlocks(provider: string, part: UserPart): Block[] {
  if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
  const media = mediaOf(provider, part);
  const type = media.mediaType?.toLowerCase();
  if (part.type === "image") {
    if (type !== undefined && !IMAGE_TYPES.has(type)) {
      throw cannotCarry(provider, `a ${type} image (it takes JPEG, PNG, GIF and WebP)`);
    }
    const source =
      media.kind === "url"
        ? { type: "url", url: media.url }
        : { type: "base64", media_type: type, data: media.base64 };
    return [{ type: "image", source }];
  }
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (type === "application/pdf") {
    const source =
      media.kind === "url"
        ? { type: "url", url: media.url }
        : { type: "base64", media_type: "application/pdf", data: media.base64 };
    return [{ type: "document", source, ...title }];
  }
  if (type === "text/plain" && media.kind === "bytes") {
    const source = { type: "text", media_type: "text/plain", data: textOfBase64(media.base64) };
    return [{ type: "document", source, ...title }];
  }
  throw cannotCarry(
    provider,
    `a ${type} file${media.kind === "url" ? " by URL" : ""} (it takes PDF files, and text/plain files as bytes)`,
  );
}

/** A `tool_result` block: the output text, or the tool's content parts as text and image blocks. */
function toolResultBlock(provider: string, result: ToolResult): Block {
  const content = result.content
    ? result.content.flatMap((part) => userBlocks(provider, part))
    : resultText(result);
  return {
    type: "tool_result",
    tool_use_id: result.toolCallId,
    content,
    ...(result.isError && { is_error: true }),
  };
}

/**
 * Maps the transcript to Messages API turns. An assistant message becomes one turn of
 * thinking (signed parts only; the API refuses unsigned ones), text and `tool_use` blocks;
 * a `tool` message becomes ONE user turn of `tool_result` blocks, right after it. Turns of the
 * same role are merged (so a user message after tool results joins their turn, after them),
 * and empty text is left out, as the API refuses both.
 */
export function anthropicMessages(messages: Message[], provider = "anthropic"): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "user") {
      const { content } = message;
      if (typeof content !== "string") {
        push(
          "user",
          content.flatMap((part) => userBlocks(provider, part)),
        );
      } else push("user", content ? [{ type: "text", text: content }] : []);
    } else if (message.role === "assistant") {
      push("assistant", assistantBlocks(message.parts));
    } else {
      push(
        "user",
        message.results.map((result) => toolResultBlock(provider, result)),
      );
    }
  }
  return out;
}

const anthropicTool = (tool: ToolSpec) => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.inputSchema,
});

function anthropicToolChoice(choice: NonNullable<ModelRequest["toolChoice"]>): Block {
  if (typeof choice !== "string") return { type: "tool", name: choice.name };
  return { type: choice === "required" ? "any" : choice };
}

/**
 * The Messages API request body. `max_tokens` (required by the API) is `maxOutputTokens` or
 * `defaultMaxTokens`; `seed` has no Anthropic equivalent and is not sent; other settings keys
 * (`thinking`, `top_k`, `metadata`…) are copied into the body.
 */
export function anthropicBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
  defaultMaxTokens: number,
  provider = "anthropic",
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, stopSequences, extra } = splitSettings(
    request.settings,
  );
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(anthropicTool),
    ...(request.toolChoice && { tool_choice: anthropicToolChoice(request.toolChoice) }),
  };
  return {
    model,
    max_tokens: maxOutputTokens ?? defaultMaxTokens,
    ...(request.system && { system: request.system }),
    messages: anthropicMessages(request.messages, provider),
    ...tools,
    ...defined({ temperature, top_p: topP, stop_sequences: stopSequences }),
    // Structured output (JSON outputs): `output_config.format`, a `json_schema`.
    ...(request.responseFormat && {
      output_config: { format: { type: "json_schema", schema: request.responseFormat.schema } },
    }),
    ...extra,
    ...(stream && { stream: true }),
  };
}
