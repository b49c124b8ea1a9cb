import type { ModelStreamPart } from "tollgate";
import { isPlainObject } from "../util/values.js";
import { errorOf } from "./model-errors.js";
import {
  finishReasonOf,
  IGNORED_CONTENT,
  toolCallOf,
  unreadable,
  usageOf,
} from "./model-result.js";
import { reasoningSignature } from "./reasoning-metadata.js";

/** Stream parts that carry nothing tollgate keeps: block bounds, metadata, keep-alives. */
const IGNORED_PARTS = new Set([
  "stream-start",
  "response-metadata",
  "text-start",
  "text-end",
  "reasoning-start",
  "tool-input-end",
  "ping",
  "raw",
  ...IGNORED_CONTENT,
]);

/** A tool call whose input streams in: its index for tollgate's deltas, and the text so far. */
interface OpenCall {
  index: number;
  /** Input deltas are forwarded only when they are JSON text (`inputEncoding` "json"). */
  forwarded: boolean;
  args: string;
}

/**
 * Maps an AI SDK stream to tollgate's stream parts, one part at a time: text and reasoning
 * deltas as they are (a reasoning part's provider metadata becomes its `signature`), tool input
 * as `tool-call-delta` parts keyed by an index of their own, then each whole `tool-call` (only
 * the rest of its input when deltas came first), and `finish`. An `error` part is thrown as a
 * `ProviderError`; a part of unknown shape is one too.
 */
export class StreamMapper {
  private readonly calls = new Map<string, OpenCall>();
  private finished = false;

  constructor(private readonly provider: string) {}

  /** The tollgate parts for one AI SDK part (none for parts tollgate does not keep). */
  map(part: unknown): ModelStreamPart[] {
    const { provider } = this;
    if (!isPlainObject(part) || typeof part.type !== "string") {
      throw unreadable(provider, "a stream part that is not { type, ... }", part);
    }
    switch (part.type) {
      case "text-delta":
        if (typeof part.delta !== "string")
          throw unreadable(provider, "a text-delta without delta", part);
        return part.delta === "" ? [] : [{ type: "text-delta", text: part.delta }];
      case "reasoning-delta":
      case "reasoning-end":
        return this.reasoning(part);
      case "tool-input-start":
        return this.inputStart(part);
      case "tool-input-delta":
        return this.inputDelta(part);
      case "tool-call":
        return this.toolCall(part);
      case "finish":
        this.finished = true;
        return [
          {
            type: "finish",
            finishReason: finishReasonOf(provider, part.finishReason),
            usage: usageOf(provider, part.usage),
          },
        ];
      case "error":
        throw errorOf(provider, part.error);
      default:
        if (IGNORED_PARTS.has(part.type)) return [];
        throw unreadable(
          provider,
          "a stream part tollgate cannot carry (it takes text, reasoning and tool calls)",
          part,
        );
    }
  }

  /** Whether the `finish` part came. */
  get done(): boolean {
    return this.finished;
  }

  private reasoning(part: Record<string, unknown>): ModelStreamPart[] {
    const text = part.type === "reasoning-delta" ? part.delta : "";
    if (typeof text !== "string")
      throw unreadable(this.provider, "a reasoning-delta without delta", part);
    const signature = reasoningSignature(part.providerMetadata);
    if (signature !== undefined) return [{ type: "reasoning-delta", text, signature }];
    return text === "" ? [] : [{ type: "reasoning-delta", text }];
  }

  private inputStart(part: Record<string, unknown>): ModelStreamPart[] {
    const { id, toolName } = part;
    if (typeof id !== "string" || typeof toolName !== "string" || this.calls.has(id)) {
      throw unreadable(this.provider, "a tool-input-start without a new id and a toolName", part);
    }
    if (part.providerExecuted === true) {
      throw unreadable(
        this.provider,
        "a tool call its provider ran itself, which would pass tollgate's gate by",
        part,
      );
    }
    const forwarded = part.inputEncoding === undefined || part.inputEncoding === "json";
    const index = this.calls.size;
    this.calls.set(id, { index, forwarded, args: "" });
    return forwarded ? [{ type: "tool-call-delta", index, id, name: toolName, argsDelta: "" }] : [];
  }

  private inputDelta(part: Record<string, unknown>): ModelStreamPart[] {
    const call = typeof part.id === "string" ? this.calls.get(part.id) : undefined;
    if (call === undefined || typeof part.delta !== "string") {
      throw unreadable(
        this.provider,
        "a tool-input-delta without the id of a started call, or without delta",
        part,
      );
    }
    if (!call.forwarded || part.delta === "") return [];
    call.args += part.delta;
    return [{ type: "tool-call-delta", index: call.index, argsDelta: part.delta }];
  }

  private toolCall(part: Record<string, unknown>): ModelStreamPart[] {
    const whole = toolCallOf(this.provider, part);
    if (whole.type !== "tool-call") return [];
    const call = this.calls.get(whole.id);
    if (call === undefined || !call.forwarded) {
      return [{ type: "tool-call", id: whole.id, name: whole.name, args: whole.args }];
    }
    // The deltas came first: send what the whole input adds to them (e.g. "{}" for none).
    if (!whole.args.startsWith(call.args)) {
      throw unreadable(
        this.provider,
        `a tool call whose input is not the text its deltas streamed (${JSON.stringify(call.args)})`,
        part,
      );
    }
    const rest = whole.args.slice(call.args.length);
    call.args = whole.args;
    return rest === "" ? [] : [{ type: "tool-call-delta", index: call.index, argsDelta: rest }];
  }
}
