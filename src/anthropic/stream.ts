import type { ModelStreamPart } from "tollgate";
import { ProviderError } from "tollgate";
import { embeddedError, parseEvent, truncatedStream } from "../http/provider-errors.js";
import type { SSEEvent } from "../http/sse.js";
import {
  type AnthropicUsage,
  anthropicFinishReason,
  anthropicUsage,
  blockPart,
  type ContentBlock,
} from "./response.js";

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage };
  content_block?: ContentBlock;
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: AnthropicUsage;
}

interface OpenToolCall {
  id: string;
  name: string;
  argsLength: number;
}

/**
 * Turns a Messages API event stream into stream parts. `tool_use` input streams as deltas keyed
 * by the block index (a tool without arguments streams only "", which becomes "{}" when its
 * block stops); thinking streams as reasoning deltas and its `signature_delta` as the
 * signature; `ping` is skipped wherever it comes. An `error` event (e.g. `overloaded_error`),
 * a stream without `message_stop`, or a message that stops inside a tool's input (the
 * `max_tokens` case) raises a `ProviderError`.
 */
export async function* anthropicStreamParts(
  provider: string,
  /** Sends the request and returns its events; called on the first read, so a request that cannot be built fails there. */
  openEvents: () => AsyncIterable<SSEEvent>,
): AsyncGenerator<ModelStreamPart> {
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let stopped = false;
  let message: unknown;
  const openCalls = new Map<number, OpenToolCall>();
  for await (const { data } of openEvents()) {
    if (stopped) continue;
    const event = parseEvent(provider, data) as StreamEvent;
    const index = event.index ?? 0;
    const { delta } = event;
    switch (event.type) {
      case "message_start":
        message = event.message;
        usage = { ...event.message?.usage };
        break;
      case "content_block_start": {
        const block = event.content_block ?? {};
        if (block.type === "tool_use") {
          openCalls.set(index, { id: block.id ?? "", name: block.name ?? "", argsLength: 0 });
          yield {
            type: "tool-call-delta",
            index,
            id: block.id ?? "",
            name: block.name ?? "",
            argsDelta: "",
          };
          break;
        }
        const part = blockPart(block);
        if (part?.type === "text") yield { type: "text-delta", text: part.text };
        else if (part?.type === "reasoning" && (part.text || part.signature)) {
          yield part.signature === undefined
            ? { type: "reasoning-delta", text: part.text }
            : { type: "reasoning-delta", text: part.text, signature: part.signature };
        }
        break;
      }
      case "content_block_delta":
        if (delta?.type === "text_delta" && delta.text)
          yield { type: "text-delta", text: delta.text };
        else if (delta?.type === "thinking_delta" && delta.thinking) {
          yield { type: "reasoning-delta", text: delta.thinking };
        } else if (delta?.type === "signature_delta" && delta.signature) {
          yield { type: "reasoning-delta", text: "", signature: delta.signature };
        } else if (delta?.type === "input_json_delta" && delta.partial_json) {
          // Only client tools: the input of a server tool (web search…) is not the caller's to run.
          const call = openCalls.get(index);
          if (call) {
            call.argsLength += delta.partial_json.length;
            yield { type: "tool-call-delta", index, argsDelta: delta.partial_json };
          }
        }
        break;
      case "content_block_stop": {
        const call = openCalls.get(index);
        if (call?.argsLength === 0) yield { type: "tool-call-delta", index, argsDelta: "{}" };
        openCalls.delete(index);
        break;
      }
      case "message_delta":
        if (delta?.stop_reason !== undefined) stopReason = delta.stop_reason;
        usage = { ...usage, ...event.usage };
        break;
      case "message_stop":
        stopped = true;
        break;
      case "error":
        throw embeddedError(provider, event, data);
    }
  }
  if (!stopped) throw truncatedStream(provider, "message_stop");
  for (const call of openCalls.values()) {
    throw new ProviderError(
      `${provider} stopped (${stopReason ?? "unknown reason"}) in the middle of the input of tool call "${call.name}" (${call.id}), so the call cannot run; raise maxOutputTokens or ask for less`,
      { retryable: false, provider },
    );
  }
  yield {
    type: "finish",
    finishReason: anthropicFinishReason(stopReason),
    usage: anthropicUsage(usage),
    raw: { message, stop_reason: stopReason, usage },
  };
}
