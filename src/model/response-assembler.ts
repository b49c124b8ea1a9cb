import type { AssistantPart, ToolCallPart } from "../messages.js";
import { zeroUsage } from "../messages.js";
import type { ModelResponse, ModelStreamPart } from "../provider.js";
import { newToolCallId } from "../util/ids.js";

/**
 * Builds a `ModelResponse` from stream parts, in the order parts begin: consecutive text
 * deltas join one text part, tool-call deltas join the call with the same `index`.
 */
export class ResponseAssembler {
  private readonly parts: AssistantPart[] = [];
  private readonly callsByIndex = new Map<number, ToolCallPart>();
  private finish: Extract<ModelStreamPart, { type: "finish" }> | undefined;

  /** Adds one stream part. */
  add(part: ModelStreamPart): void {
    switch (part.type) {
      case "text-delta":
        this.addText(part.text);
        break;
      case "reasoning-delta":
        this.addReasoning(part.text, part.signature);
        break;
      case "tool-call-delta":
        this.addToolCallDelta(part);
        break;
      case "tool-call":
        this.parts.push({ type: "tool-call", id: part.id, name: part.name, args: part.args });
        break;
      case "finish":
        this.finish = part;
    }
  }

  private addText(text: string): void {
    const last = this.parts[this.parts.length - 1];
    if (last?.type === "text") last.text += text;
    else this.parts.push({ type: "text", text });
  }

  private addReasoning(text: string, signature: string | undefined): void {
    const last = this.parts[this.parts.length - 1];
    // A signature closes a reasoning block: text after it starts a new one.
    if (
      last?.type === "reasoning" &&
      (last.signature === undefined || (text === "" && signature === undefined))
    ) {
      last.text += text;
      if (signature !== undefined) last.signature = signature;
      return;
    }
    this.parts.push(
      signature === undefined
        ? { type: "reasoning", text }
        : { type: "reasoning", text, signature },
    );
  }

  private addToolCallDelta(part: Extract<ModelStreamPart, { type: "tool-call-delta" }>): void {
    let call = this.callsByIndex.get(part.index);
    if (!call) {
      call = { type: "tool-call", id: "", name: "", args: "" };
      this.callsByIndex.set(part.index, call);
      this.parts.push(call);
    }
    if (part.id && !call.id) call.id = part.id;
    if (part.name && !call.name) call.name = part.name;
    call.args += part.argsDelta;
  }

  /**
   * Ends the response: a call without an id, or with an id an earlier call of the response
   * already has, gets one of its own, so every result pairs with exactly one call. A stream
   * without a `finish` part ends as "other" with zero usage.
   */
  close(): ModelResponse {
    const seen = new Set<string>();
    for (const part of this.parts) {
      if (part.type !== "tool-call") continue;
      if (!part.id || seen.has(part.id)) part.id = newToolCallId();
      seen.add(part.id);
    }
    const { parts } = this;
    const finish = this.finish;
    if (!finish) return { parts, finishReason: "other", usage: zeroUsage() };
    const response: ModelResponse = {
      parts,
      finishReason: finish.finishReason,
      usage: { ...finish.usage },
    };
    if (finish.raw !== undefined) response.raw = finish.raw;
    return response;
  }
}

/** Collects a whole stream into one response. */
export async function collectResponse(
  stream: AsyncIterable<ModelStreamPart>,
): Promise<ModelResponse> {
  const assembler = new ResponseAssembler();
  for await (const part of stream) assembler.add(part);
  return assembler.close();
}
