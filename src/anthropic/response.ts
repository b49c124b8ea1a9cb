import type { AssistantPart, FinishReason, ModelResponse, Usage } from "tollgate";
import type { AnswerShape } from "../http/answer.js";
import { embeddedError } from "../http/provider-errors.js";
import { makeUsage } from "../http/usage.js";
import { REDACTED_PREFIX } from "./thinking.js";

/** The Messages API `usage` object. */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** A content block, as far as this adapter reads it. */
export interface ContentBlock {
  type?: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

interface MessageObject {
  type?: string;
  content?: ContentBlock[];
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

/** What a Messages API answer must be: a JSON object with a `content` array. */
export const MESSAGE_OBJECT: AnswerShape = {
  name: "a message (JSON with `content`)",
  test: (body) => Array.isArray(body.content),
};

/**
 * Maps Messages API usage. `inputTokens` counts every prompt token: the uncached ones plus
 * cache writes plus cache reads (`cachedInputTokens`), as Anthropic reports them apart. No
 * input or output count at all is `unknown` usage.
 */
export function anthropicUsage(usage: AnthropicUsage | undefined): Usage {
  if (usage?.input_tokens == null && usage?.output_tokens == null) return makeUsage({});
  const cacheRead = usage?.cache_read_input_tokens ?? undefined;
  const input =
    (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (cacheRead ?? 0);
  return makeUsage({ input, output: usage?.output_tokens, cachedInput: cacheRead });
}

/** Maps a `stop_reason`. */
export function anthropicFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}

/**
 * Maps one content block: text; thinking with its signature; redacted thinking (see
 * `REDACTED_PREFIX`); `tool_use` with its input as JSON text. Server-tool blocks are skipped.
 */
export function blockPart(block: ContentBlock): AssistantPart | undefined {
  switch (block.type) {
    case "text":
      return block.text ? { type: "text", text: block.text } : undefined;
    case "thinking":
      return block.signature
        ? { type: "reasoning", text: block.thinking ?? "", signature: block.signature }
        : { type: "reasoning", text: block.thinking ?? "" };
    case "redacted_thinking":
      return { type: "reasoning", text: "", signature: `${REDACTED_PREFIX}${block.data ?? ""}` };
    case "tool_use":
      return {
        type: "tool-call",
        id: block.id ?? "",
        name: block.name ?? "",
        args: JSON.stringify(block.input ?? {}),
      };
    default:
      return undefined;
  }
}

/** Maps a whole (non-streamed) Messages API response. */
export function anthropicResponse(provider: string, body: unknown): ModelResponse {
  const message = body as MessageObject;
  if (message.type === "error") throw embeddedError(provider, body, JSON.stringify(body));
  const parts: AssistantPart[] = [];
  for (const block of message.content ?? []) {
    const part = blockPart(block);
    if (part) parts.push(part);
  }
  return {
    parts,
    finishReason: anthropicFinishReason(message.stop_reason),
    usage: anthropicUsage(message.usage),
    raw: body,
  };
}
