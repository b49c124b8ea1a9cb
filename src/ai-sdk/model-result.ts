import {
  type AssistantPart,
  type FinishReason,
  type ModelResponse,
  ProviderError,
  type Usage,
} from "tollgate";
import { shortForm } from "../util/policy-call.js";
import { isPlainObject } from "../util/values.js";
import { reasoningSignature } from "./reasoning-metadata.js";

/** A `ProviderError` for something a model answered that `fromAISDK` cannot read. */
export const unreadable = (provider: string, what: string, value: unknown): ProviderError =>
  new ProviderError(`AI SDK model "${provider}" answered ${what} (got ${shortForm(value)})`, {
    retryable: false,
    provider,
  });

/**
 * Every unified finish reason of the V4 specification (`@ai-sdk/provider`'s
 * `LanguageModelV4FinishReason`; V3 has the same but "interrupted"), mapped deliberately: the
 * five that mean "the model finished" map to tollgate's own; "error" and "interrupted" mean it
 * did not, and are a `ProviderError` (see `unfinished`), never an answer.
 */
const FINISH: Record<string, FinishReason | "unfinished"> = {
  stop: "stop",
  length: "length",
  "content-filter": "content-filter",
  "tool-calls": "tool-calls",
  other: "other",
  error: "unfinished",
  interrupted: "unfinished",
};

/**
 * The `ProviderError` for an answer the model did not finish. "interrupted": the stream ended
 * without the provider's completion signal (no finish_reason, no [DONE], no message_stop: the
 * connection was cut, or the body was not the event stream it should be), retryable, as the
 * native adapters' truncated stream is. "error": the model said it stopped because of an error.
 */
function unfinished(provider: string, unified: string, raw: unknown): ProviderError {
  const said =
    typeof raw === "string" && raw !== "" ? ` (raw finish reason ${shortForm(raw)})` : "";
  return unified === "interrupted"
    ? new ProviderError(
        `AI SDK model "${provider}": the stream ended before the model finished${said}: the response is incomplete (the connection was cut, or the server did not send the event stream it should)`,
        { retryable: true, provider },
      )
    : new ProviderError(
        `AI SDK model "${provider}" stopped because of an error${said}: the response is not an answer`,
        { retryable: false, provider },
      );
}

/**
 * The AI SDK's finish reason (`{ unified, raw }`, or a plain string as older models send it).
 * "error" and "interrupted" throw a `ProviderError`: the partial text is not an answer.
 */
export function finishReasonOf(provider: string, reason: unknown): FinishReason {
  const unified = isPlainObject(reason) ? reason.unified : reason;
  const mapped =
    typeof unified === "string" && Object.hasOwn(FINISH, unified) ? FINISH[unified] : undefined;
  if (mapped === undefined) throw unreadable(provider, "an unknown finish reason", reason);
  if (mapped === "unfinished") {
    throw unfinished(provider, unified as string, isPlainObject(reason) ? reason.raw : undefined);
  }
  return mapped;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The AI SDK's usage (`{ inputTokens: { total, cacheRead, … }, outputTokens: { total,
 * reasoning, … } }`) as tollgate's: counts a provider leaves out are 0, reasoning and cached
 * tokens appear when reported, and no input or output total at all is `unknown` usage.
 */
export function usageOf(provider: string, usage: unknown): Usage {
  if (
    !isPlainObject(usage) ||
    !isPlainObject(usage.inputTokens) ||
    !isPlainObject(usage.outputTokens)
  ) {
    throw unreadable(
      provider,
      "a usage that is not { inputTokens: {...}, outputTokens: {...} }",
      usage,
    );
  }
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  const inputTokens = count(input.total) ?? 0;
  const outputTokens = count(output.total) ?? 0;
  const out: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  if (count(input.total) === undefined && count(output.total) === undefined) out.unknown = true;
  const reasoning = count(output.reasoning);
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  const cached = count(input.cacheRead);
  if (cached !== undefined) out.cachedInputTokens = cached;
  return out;
}

/**
 * Content `fromAISDK` passes over: sources and custom parts are metadata about the answer,
 * whose text is in its text parts.
 */
export const IGNORED_CONTENT = new Set(["source", "custom"]);

/**
 * A tool call the model made, as tollgate's part. A call the provider ran itself (its
 * built-in tools) is a `ProviderError`: tollgate's gate sees every call, and such a call would
 * pass it by.
 */
export function toolCallOf(provider: string, part: Record<string, unknown>): AssistantPart {
  if (part.providerExecuted === true) {
    throw unreadable(
      provider,
      "a tool call its provider ran itself, which would pass tollgate's gate by",
      part,
    );
  }
  const { toolCallId, toolName, input } = part;
  if (typeof toolCallId !== "string" || typeof toolName !== "string" || typeof input !== "string") {
    throw unreadable(
      provider,
      "a tool call without a string toolCallId, toolName and input (JSON text)",
      part,
    );
  }
  return { type: "tool-call", id: toolCallId, name: toolName, args: input };
}

/** Reads one content part of a `doGenerate` result; `undefined` for parts passed over. */
function partOf(provider: string, part: unknown): AssistantPart | undefined {
  if (!isPlainObject(part))
    throw unreadable(provider, "a content part that is not an object", part);
  switch (part.type) {
    case "text":
      if (typeof part.text !== "string")
        throw unreadable(provider, "a text part without text", part);
      return { type: "text", text: part.text };
    case "reasoning": {
      if (typeof part.text !== "string")
        throw unreadable(provider, "a reasoning part without text", part);
      const signature = reasoningSignature(part.providerMetadata);
      return signature === undefined
        ? { type: "reasoning", text: part.text }
        : { type: "reasoning", text: part.text, signature };
    }
    case "tool-call":
      return toolCallOf(provider, part);
    default:
      if (typeof part.type === "string" && IGNORED_CONTENT.has(part.type)) return undefined;
      throw unreadable(
        provider,
        "content tollgate cannot carry (it takes text, reasoning and tool calls)",
        part,
      );
  }
}

/** A `doGenerate` result as a `ModelResponse`; its HTTP body, when the model reports it, is `raw`. */
export function responseOf(provider: string, result: unknown): ModelResponse {
  if (!isPlainObject(result) || !Array.isArray(result.content)) {
    throw unreadable(
      provider,
      "doGenerate() with something that is not { content: [...], finishReason, usage }",
      result,
    );
  }
  const parts: AssistantPart[] = [];
  for (const part of result.content) {
    const read = partOf(provider, part);
    if (read !== undefined) parts.push(read);
  }
  const response: ModelResponse = {
    parts,
    finishReason: finishReasonOf(provider, result.finishReason),
    usage: usageOf(provider, result.usage),
  };
  const body = isPlainObject(result.response) ? result.response.body : undefined;
  if (body !== undefined) response.raw = body;
  return response;
}
