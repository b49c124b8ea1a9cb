import type { ModelStreamPart } from "tollgate";
import { embeddedError, parseEvent, truncatedStream } from "../http/provider-errors.js";
import type { SSEEvent } from "../http/sse.js";
import { encodeReasoningSignature } from "./reasoning-signature.js";
import {
  type OutputItem,
  type ResponseObject,
  responsesFinishReason,
  responsesUsage,
} from "./responses-response.js";

interface ResponsesEvent {
  type?: string;
  delta?: string;
  output_index?: number;
  summary_index?: number;
  item?: OutputItem;
  response?: ResponseObject;
}

/**
 * Turns a Responses API event stream into stream parts: text and refusal deltas (a refusal
 * makes the finish reason "content-filter"), reasoning summary deltas (the finished reasoning
 * item then arrives as a signature), function calls as deltas keyed by `output_index`, and a
 * finish from `response.completed` or `response.incomplete`. An `error` event or `response.failed` raises a `ProviderError`, so
 * does a stream that ends before the response does.
 */
export async function* responsesStreamParts(
  provider: string,
  /** Sends the request and returns its events; called on the first read, so a request that cannot be built fails there. */
  openEvents: () => AsyncIterable<SSEEvent>,
): AsyncGenerator<ModelStreamPart> {
  let finish: ModelStreamPart | undefined;
  let refused = false;
  for await (const { data } of openEvents()) {
    if (finish) continue;
    const event = parseEvent(provider, data) as ResponsesEvent;
    const { item } = event;
    switch (event.type) {
      case "response.refusal.delta":
        refused = true;
        if (event.delta) yield { type: "text-delta", text: event.delta };
        break;
      case "response.output_text.delta":
        if (event.delta) yield { type: "text-delta", text: event.delta };
        break;
      case "response.reasoning_summary_text.delta":
        if (event.delta) yield { type: "reasoning-delta", text: event.delta };
        break;
      case "response.reasoning_summary_part.added":
        if ((event.summary_index ?? 0) > 0) yield { type: "reasoning-delta", text: "\n\n" };
        break;
      case "response.output_item.added":
        if (item?.type === "function_call") {
          const part: ModelStreamPart = {
            type: "tool-call-delta",
            index: event.output_index ?? 0,
            argsDelta: item.arguments ?? "",
          };
          if (item.call_id) part.id = item.call_id;
          if (item.name) part.name = item.name;
          yield part;
        }
        break;
      case "response.function_call_arguments.delta":
        if (event.delta) {
          yield { type: "tool-call-delta", index: event.output_index ?? 0, argsDelta: event.delta };
        }
        break;
      case "response.output_item.done":
        if (item?.type === "reasoning") {
          const signature = encodeReasoningSignature(item);
          if (signature) yield { type: "reasoning-delta", text: "", signature };
        }
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        const response = event.response ?? {};
        finish = {
          type: "finish",
          finishReason: responsesFinishReason(provider, response, refused),
          usage: responsesUsage(response.usage),
          raw: response,
        };
        break;
      }
      case "error":
        throw embeddedError(provider, event, data);
    }
  }
  if (!finish) throw truncatedStream(provider, "response.completed");
  yield finish;
}
