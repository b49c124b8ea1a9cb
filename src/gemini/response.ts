import type { FinishReason, ModelStreamPart, Usage } from "tollgate";
import type { AnswerShape } from "../http/answer.js";
import { embeddedError } from "../http/provider-errors.js";
import { makeUsage } from "../http/usage.js";
import { newToolCallId } from "../util/ids.js";
import { type PartialArg, setPartialArg } from "./partial-args.js";

interface FunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  partialArgs?: PartialArg[];
  willContinue?: boolean;
}

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: FunctionCall;
}

interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
}

/** A `GenerateContentResponse` (one stream chunk, or the whole answer), as far as it is read. */
export interface GenerateContentResponse {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: UsageMetadata;
  error?: unknown;
}

/**
 * What a whole `generateContent` answer must be: a JSON object with `candidates`, or with only
 * `promptFeedback` (a blocked prompt gets no candidates).
 */
export const GENERATE_CONTENT_RESPONSE: AnswerShape = {
  name: "a GenerateContentResponse (JSON with `candidates`)",
  test: (body) =>
    Array.isArray(body.candidates) ||
    (typeof body.promptFeedback === "object" && body.promptFeedback !== null),
};

/**
 * Maps Gemini usage. `outputTokens` counts the answer and the thoughts
 * (`candidatesTokenCount + thoughtsTokenCount`, as billed and as the total adds up);
 * `reasoningTokens` is the thoughts alone.
 */
export function geminiUsage(usage: UsageMetadata | undefined): Usage {
  if (usage === undefined) return makeUsage({}); // no `usageMetadata`: unknown, not 0
  const thoughts = usage?.thoughtsTokenCount;
  return makeUsage({
    input: usage?.promptTokenCount,
    output: (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    total: usage?.totalTokenCount,
    cachedInput: usage?.cachedContentTokenCount,
    reasoning: thoughts,
  });
}

/** Maps a Gemini `finishReason`; Gemini says STOP after function calls too. */
export function geminiFinishReason(reason: string, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "STOP":
      return hasToolCalls ? "tool-calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "content-filter";
    case "MALFORMED_FUNCTION_CALL":
    case "UNEXPECTED_TOOL_CALL":
      return "error";
    default:
      return "other";
  }
}

/** Reads `GenerateContentResponse`s, one after another, into stream parts. */
export interface CandidateReader {
  /** The parts of one response (a stream chunk, or the whole answer). */
  read(response: GenerateContentResponse): ModelStreamPart[];
  /** Whether a response said why the model stopped (a stream without that was cut short). */
  readonly complete: boolean;
  /** The closing `finish` part ("other" when no response gave a reason). */
  finish(): ModelStreamPart;
}

interface StreamedCall {
  index: number;
  args: Record<string, unknown>;
  continuing: string | undefined;
}

/**
 * Creates a reader of Gemini responses, shared by `generate` and `stream`. Thoughts
 * (`thought: true`) become reasoning; a `thoughtSignature` on any other part becomes a
 * signature-only reasoning delta just before that part (sent back on it later). Function calls
 * get generated ids (Gemini gives none); a call streamed in pieces (Vertex
 * `streamFunctionCallArguments`: a name with `willContinue`, then `partialArgs`, then an empty
 * `functionCall`) becomes deltas keyed by a call index, its args sent whole when it closes.
 */
export function createCandidateReader(provider: string): CandidateReader {
  let finishReason: string | undefined;
  let usage: UsageMetadata | undefined;
  let last: GenerateContentResponse | undefined;
  let hasToolCalls = false;
  let nextIndex = 0;
  let streamed: StreamedCall | undefined;

  // Parts go straight into the array `read` returns: no generator per part of every chunk.
  function functionCall(call: FunctionCall, out: ModelStreamPart[]): void {
    if (!streamed && (call.willContinue || call.partialArgs)) {
      const id = call.id || newToolCallId();
      streamed = { index: nextIndex++, args: {}, continuing: undefined };
      hasToolCalls = true;
      out.push({
        type: "tool-call-delta",
        index: streamed.index,
        id,
        name: call.name ?? "",
        argsDelta: "",
      });
    }
    if (streamed) {
      for (const arg of call.partialArgs ?? []) {
        setPartialArg(streamed.args, arg, streamed.continuing === arg.jsonPath);
        streamed.continuing = arg.willContinue ? arg.jsonPath : undefined;
      }
      if (!call.willContinue) closeStreamed(out);
    } else if (call.name) {
      hasToolCalls = true;
      out.push({
        type: "tool-call",
        id: call.id || newToolCallId(),
        name: call.name,
        args: JSON.stringify(call.args ?? {}),
      });
    }
  }

  /** Sends the args of the call being streamed, now complete, and closes it. */
  function closeStreamed(out: ModelStreamPart[]): void {
    if (!streamed) return;
    out.push({
      type: "tool-call-delta",
      index: streamed.index,
      argsDelta: JSON.stringify(streamed.args),
    });
    streamed = undefined;
  }

  function partsOf(part: GeminiPart, out: ModelStreamPart[]): void {
    const signature = part.thoughtSignature;
    if (part.thought) {
      const text = part.text ?? "";
      if (text || signature) {
        out.push(
          signature
            ? { type: "reasoning-delta", text, signature }
            : { type: "reasoning-delta", text },
        );
      }
      return;
    }
    if (signature) out.push({ type: "reasoning-delta", text: "", signature });
    if (part.functionCall) functionCall(part.functionCall, out);
    else if (part.text) out.push({ type: "text-delta", text: part.text });
  }

  return {
    read(response) {
      if (response.error) throw embeddedError(provider, response, JSON.stringify(response));
      last = response;
      const metadata = response.usageMetadata;
      if (metadata?.promptTokenCount !== undefined || metadata?.totalTokenCount !== undefined) {
        usage = metadata;
      }
      if (response.promptFeedback?.blockReason) finishReason = "SAFETY";
      const candidate = response.candidates?.[0];
      const parts: ModelStreamPart[] = [];
      for (const part of candidate?.content?.parts ?? []) partsOf(part, parts);
      if (candidate?.finishReason) {
        finishReason = candidate.finishReason;
        closeStreamed(parts); // a call still open when the model stops ends here
      }
      return parts;
    },
    get complete() {
      return finishReason !== undefined;
    },
    finish() {
      return {
        type: "finish",
        finishReason: geminiFinishReason(finishReason ?? "", hasToolCalls),
        usage: geminiUsage(usage),
        raw: last,
      };
    },
  };
}
