import type { AssistantPart, FinishReason, ModelResponse, Usage } from "tollgate";
import type { AnswerShape } from "../http/answer.js";
import { embeddedError } from "../http/provider-errors.js";
import { makeUsage } from "../http/usage.js";
import { newToolCallId } from "../util/ids.js";

/** The `usage` object of Chat Completions and of the servers that copy it. */
export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

interface ChatToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatCompletion {
  choices?: {
    message?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChatToolCall[] | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
  error?: unknown;
}

/** What a Chat Completions answer must be: a JSON object with a `choices` array. */
export const CHAT_COMPLETION: AnswerShape = {
  name: "a chat completion (JSON with `choices`)",
  test: (body) => Array.isArray(body.choices),
};

/** Maps Chat Completions usage, passing the server's own counts through. */
export const chatUsage = (usage: ChatUsage | null | undefined): Usage =>
  makeUsage({
    input: usage?.prompt_tokens,
    output: usage?.completion_tokens,
    total: usage?.total_tokens,
    cachedInput: usage?.prompt_tokens_details?.cached_tokens,
    reasoning: usage?.completion_tokens_details?.reasoning_tokens,
  });

/**
 * Maps a `finish_reason`. A "stop" with tool calls (some local servers send it) counts as
 * "tool-calls". A refusal (`message.refusal`, streamed as `delta.refusal`) is "content-filter",
 * whatever the wire says (OpenAI sends "stop"), as the AI SDK reads it: the model declined, and
 * the loop must not take its words for an answer.
 */
export function chatFinishReason(
  reason: unknown,
  hasToolCalls: boolean,
  refused = false,
): FinishReason {
  if (refused) return "content-filter";
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "stop":
      return hasToolCalls ? "tool-calls" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    default:
      return hasToolCalls ? "tool-calls" : "other";
  }
}

/**
 * Maps a whole `chat.completion` body: reasoning (`reasoning_content` or `reasoning`, sent by
 * OpenAI-compatible servers), the text (a refusal's words count as text, and its finish reason
 * is "content-filter"), then the tool calls.
 */
export function chatResponse(provider: string, body: unknown): ModelResponse {
  const completion = body as ChatCompletion;
  if (completion.error) throw embeddedError(provider, completion, JSON.stringify(body));
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const parts: AssistantPart[] = [];
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (reasoning) parts.push({ type: "reasoning", text: reasoning });
  const text = (message?.content ?? "") + (message?.refusal ?? "");
  if (text) parts.push({ type: "text", text });
  for (const call of message?.tool_calls ?? []) {
    parts.push({
      type: "tool-call",
      id: call.id || newToolCallId(),
      name: call.function?.name ?? "",
      args: call.function?.arguments ?? "",
    });
  }
  const hasToolCalls = parts.some((part) => part.type === "tool-call");
  return {
    parts,
    finishReason: chatFinishReason(choice?.finish_reason, hasToolCalls, !!message?.refusal),
    usage: chatUsage(completion.usage),
    raw: body,
  };
}
