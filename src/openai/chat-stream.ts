import type { ModelStreamPart } from "tollgate";
import { embeddedError, parseEvent, truncatedStream } from "../http/provider-errors.js";
import type { SSEEvent } from "../http/sse.js";
import { type ChatUsage, chatFinishReason, chatUsage } from "./chat-response.js";

interface ChatChunk {
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
  error?: unknown;
}

/**
 * Turns a Chat Completions event stream into stream parts. Tolerates what OpenAI-compatible
 * servers do: chunks with `choices: []` (usage, Azure filter results), `reasoning` /
 * `reasoning_content` deltas, a whole tool call in one chunk, calls without `index`, usage on
 * the finish chunk, and `event: error` frames. A `delta.refusal` is text, and makes the finish
 * reason "content-filter". Ending without `[DONE]` or a `finish_reason`
 * raises a `ProviderError`.
 */
export async function* chatStreamParts(
  provider: string,
  /** Sends the request and returns its events; called on the first read, so a request that cannot be built fails there. */
  openEvents: () => AsyncIterable<SSEEvent>,
): AsyncGenerator<ModelStreamPart> {
  let done = false;
  let finishReason: string | undefined;
  let usage: ChatUsage | undefined;
  let last: unknown;
  let nextIndex = 0;
  let refused = false;
  for await (const event of openEvents()) {
    if (done) continue;
    if (event.data === "[DONE]") {
      done = true;
      continue;
    }
    const chunk = parseEvent(provider, event.data) as ChatChunk;
    if (event.event === "error" || chunk.error) throw embeddedError(provider, chunk, event.data);
    last = chunk;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) yield { type: "reasoning-delta", text: reasoning };
    if (delta.content) yield { type: "text-delta", text: delta.content };
    if (delta.refusal) {
      refused = true;
      yield { type: "text-delta", text: delta.refusal };
    }
    for (const call of delta.tool_calls ?? []) {
      // A call without `index` continues the last one, unless it brings an id of its own.
      const index = call.index ?? (call.id !== undefined ? nextIndex : Math.max(0, nextIndex - 1));
      nextIndex = Math.max(nextIndex, index + 1);
      const part: ModelStreamPart = {
        type: "tool-call-delta",
        index,
        argsDelta: call.function?.arguments ?? "",
      };
      if (call.id) part.id = call.id;
      if (call.function?.name) part.name = call.function.name;
      yield part;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!done && finishReason === undefined) throw truncatedStream(provider, "[DONE]");
  yield {
    type: "finish",
    finishReason: chatFinishReason(finishReason, nextIndex > 0, refused),
    usage: chatUsage(usage),
    raw: last,
  };
}
