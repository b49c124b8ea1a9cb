import type { AssistantPart, FinishReason, ModelResponse, Usage } from "tollgate";
import type { AnswerShape } from "../http/answer.js";
import { embeddedError } from "../http/provider-errors.js";
import { makeUsage } from "../http/usage.js";
import { encodeReasoningSignature } from "./reasoning-signature.js";

/** A Responses API output item, as far as this adapter reads it. */
export interface OutputItem {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
  summary?: { type?: string; text?: string }[];
  content?: { type?: string; text?: string; refusal?: string }[];
}

/** A Responses API `response` object, as far as this adapter reads it. */
export interface ResponseObject {
  status?: string;
  output?: OutputItem[];
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    total_tokens?: number;
    input_tokens_details?: { cached_tokens?: number } | null;
    output_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  incomplete_details?: { reason?: string } | null;
  error?: unknown;
}

/** What a Responses API answer must be: a JSON object with an `output` array. */
export const RESPONSE_OBJECT: AnswerShape = {
  name: "a response (JSON with `output`)",
  test: (body) => Array.isArray(body.output),
};

/** Maps Responses API usage. */
export const responsesUsage = (usage: ResponseObject["usage"]): Usage =>
  makeUsage({
    input: usage?.input_tokens,
    output: usage?.output_tokens,
    total: usage?.total_tokens,
    cachedInput: usage?.input_tokens_details?.cached_tokens,
    reasoning: usage?.output_tokens_details?.reasoning_tokens,
  });

/**
 * The finish reason of a response: "length" or "content-filter" for an incomplete one,
 * "content-filter" for one with a refusal (a `refusal` content part, or `refused`: a streamed
 * `response.refusal.delta`), "tool-calls" when it holds function calls, else "stop". A failed
 * response throws its error.
 */
export function responsesFinishReason(
  provider: string,
  response: ResponseObject,
  refused = false,
): FinishReason {
  if (response.status === "failed") {
    throw embeddedError(provider, { error: response.error }, JSON.stringify(response));
  }
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens"
      ? "length"
      : reason === "content_filter"
        ? "content-filter"
        : "other";
  }
  if (refused || response.output?.some(hasRefusal)) return "content-filter";
  return response.output?.some((item) => item.type === "function_call") ? "tool-calls" : "stop";
}

/** Whether an output item is a message with a refusal part. */
const hasRefusal = (item: OutputItem) =>
  item.type === "message" && (item.content ?? []).some((content) => content.type === "refusal");

/** The text of a reasoning item's summary parts, separated by blank lines. */
export const summaryText = (item: OutputItem): string =>
  (item.summary ?? []).map((part) => part.text ?? "").join("\n\n");

/**
 * Maps one output item to assistant parts: a reasoning item to a reasoning part whose
 * `signature` carries the item (see `encodeReasoningSignature`), a message to text parts (a
 * refusal's words count as text; its finish reason says it was one), a function call to a tool-call part keyed by its `call_id`.
 */
export function outputItemParts(item: OutputItem): AssistantPart[] {
  switch (item.type) {
    case "reasoning": {
      const signature = encodeReasoningSignature(item);
      const text = summaryText(item);
      return [signature ? { type: "reasoning", text, signature } : { type: "reasoning", text }];
    }
    case "message":
      return (item.content ?? []).flatMap((content): AssistantPart[] => {
        const text = content.type === "refusal" ? content.refusal : content.text;
        return text ? [{ type: "text", text }] : [];
      });
    case "function_call":
      return [
        {
          type: "tool-call",
          id: item.call_id ?? item.id ?? "",
          name: item.name ?? "",
          args: item.arguments ?? "",
        },
      ];
    default:
      return [];
  }
}

/** Maps a whole (non-streamed) Responses API `response` object. */
export function responsesResponse(provider: string, body: unknown): ModelResponse {
  const response = body as ResponseObject;
  return {
    parts: (response.output ?? []).flatMap(outputItemParts),
    finishReason: responsesFinishReason(provider, response),
    usage: responsesUsage(response.usage),
    raw: body,
  };
}
