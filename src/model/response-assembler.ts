import { ProviderError } from "../errors.js";
import type { AssistantPart, ToolCallPart } from "../types/messages.js";
import type { ModelResponse, ModelStreamPart } from "../types/provider.js";
import { newToolCallId } from "../util/ids.js";

/**
 * Builds a `ModelResponse` from stream parts, in the order parts begin: consecutive text
 * deltas join one text part, tool-call deltas join the call with the same `index`. The stream
 * must end with exactly one `finish` part: a part after it, or a stream without one, is a
 * `ProviderError` naming the provider (a cut stream is never passed off as a whole answer).
 */
export class ResponseAssembler {
  private readonly parts: AssistantPart[] = [];
  private readonly callsByIndex = new Map<number, ToolCallPart>();
  private finish: Extract<ModelStreamPart, { type: "finish" }> | undefined;

  private readonly provider: string | undefined;

  /** @param provider The provider's name, for errors. */
  constructor(provider?: string) {
    this.provider = provider;
  }

  /** Adds one stream part. */
  add(part: ModelStreamPart): void {
    if (this.finish) {
      throw this.error(`sent a ${part.type} part after its finish part; finish comes last`);
    }
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
   * without a `finish` part is a `ProviderError`.
   */
  close(): ModelResponse {
    const finish = this.finish;
    if (!finish) {
      throw this.error(
        'ended its stream without a finish part; a stream ends with { type: "finish", finishReason, usage }',
      );
    }
    const seen = new Set<string>();
    for (const part of this.parts) {
      if (part.type !== "tool-call") continue;
      if (!part.id || seen.has(part.id)) part.id = newToolCallId();
      seen.add(part.id);
    }
    const response: ModelResponse = {
      parts: this.parts,
      finishReason: finish.finishReason,
      usage: { ...finish.usage },
    };
    if (finish.raw !== undefined) response.raw = finish.raw;
    return response;
  }

  private error(problem: string): ProviderError {
    const { provider } = this;
    const who = provider === undefined ? "the provider" : `provider "${provider}"`;
    return new ProviderError(`${who} ${problem}`, {
      retryable: false,
      provider: provider ?? "unknown",
    });
  }
}

/**
 * Collects a whole stream into one response, as the loop does: deltas joined by `index`, and a
 * `ProviderError` naming `provider` when the stream does not end with its one `finish` part.
 */
export async function collectResponse(
  stream: AsyncIterable<ModelStreamPart>,
  provider?: string,
): Promise<ModelResponse> {
  const assembler = new ResponseAssembler(provider);
  for await (const part of stream) assembler.add(part);
  return assembler.close();
}
