import type {
  AssistantPart,
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Usage,
} from "tollgate";

/** A tool call in a script: `args` as an object (sent as JSON) or a string (sent verbatim). */
export interface ScriptedToolCall {
  name: string;
  args?: unknown | undefined;
  id?: string | undefined;
}

/** What the fake model answers in one turn. */
export interface TurnReply {
  text?: string | undefined;
  reasoning?: string | undefined;
  toolCalls?: ScriptedToolCall[] | undefined;
  /** Default: "tool-calls" when there are tool calls, else "stop". */
  finishReason?: FinishReason | undefined;
  /** Default: all zero. */
  usage?: Partial<Usage> | undefined;
}

/** One scripted turn: a reply, an error to throw as given, or a function of the request. */
export type ScriptedTurn =
  | TurnReply
  | { error: unknown }
  | ((request: ModelRequest) => TurnReply | ModelResponse | Promise<TurnReply | ModelResponse>);

/** Options shared by the fakes. */
export interface FakeProviderOptions {
  /** Stream replies (text in chunks, tool-call args in fragments) instead of answering whole. */
  stream?: boolean | undefined;
  /** Characters per streamed text, reasoning or args fragment (default 4). */
  chunkSize?: number | undefined;
  name?: string | undefined;
  model?: string | undefined;
  /**
   * Declares native structured output, as the adapters do: the loop then sends
   * `request.responseFormat` and `output`'s default mode is "native" (else "tool"). Script
   * the answer as `{ text: JSON.stringify(value) }`.
   */
  supportsNativeOutput?: boolean | undefined;
}

/** Turns a reply (or a whole response) into a response; ids are `call_<step>_<n>` when not given. */
export function toResponse(reply: TurnReply | ModelResponse, step: number): ModelResponse {
  if ("parts" in reply && Array.isArray(reply.parts)) return reply;
  const { text, reasoning, toolCalls = [], usage } = reply as TurnReply;
  const parts: AssistantPart[] = [];
  if (reasoning !== undefined) parts.push({ type: "reasoning", text: reasoning });
  if (text !== undefined) parts.push({ type: "text", text });
  toolCalls.forEach((call, index) => {
    parts.push({
      type: "tool-call",
      id: call.id ?? `call_${step}_${index}`,
      name: call.name,
      args: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
    });
  });
  const total: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, ...usage };
  if (usage?.totalTokens === undefined) total.totalTokens = total.inputTokens + total.outputTokens;
  return {
    parts,
    finishReason:
      (reply as TurnReply).finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
    usage: total,
  };
}

/** The response as a stream: text and reasoning in chunks, each call's args in fragments by index. */
export function* chunkedParts(
  response: ModelResponse,
  chunkSize: number,
): Generator<ModelStreamPart> {
  let callIndex = 0;
  for (const part of response.parts) {
    if (part.type === "text") {
      for (const text of chunks(part.text, chunkSize)) yield { type: "text-delta", text };
    } else if (part.type === "reasoning") {
      for (const text of chunks(part.text, chunkSize)) yield { type: "reasoning-delta", text };
      if (part.signature !== undefined) {
        yield { type: "reasoning-delta", text: "", signature: part.signature };
      }
    } else {
      const index = callIndex++;
      yield { type: "tool-call-delta", index, id: part.id, name: part.name, argsDelta: "" };
      for (const argsDelta of chunks(part.args, chunkSize)) {
        yield { type: "tool-call-delta", index, argsDelta };
      }
    }
  }
  yield { type: "finish", finishReason: response.finishReason, usage: response.usage };
}

function* chunks(text: string, size: number): Generator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}
