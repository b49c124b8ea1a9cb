import type {
  AssistantPart,
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Usage,
} from "tollgate";
import { checkKeys } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";

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
  /**
   * Default: all zero (a fake spends no tokens). `{ unknown: true }` plays a provider that
   * reports no usage, to test what token limits and telemetry do then.
   */
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

/** Every key of a reply; a `Record` over the keys so a new one cannot be left out. */
const REPLY_KEYS: Record<keyof TurnReply, true> = {
  text: true,
  reasoning: true,
  toolCalls: true,
  finishReason: true,
  usage: true,
};
const TOOL_CALL_KEYS: Record<keyof ScriptedToolCall, true> = { name: true, args: true, id: true };
const REPLY_KEY_LIST = Object.keys(REPLY_KEYS);
const TOOL_CALL_KEY_LIST = Object.keys(TOOL_CALL_KEYS);

/**
 * Whether `checkReply` would pass the reply, without building a message: the fakes check every
 * answer, and a step should not pay for the words of an error it does not throw.
 */
function isFitReply(reply: unknown): boolean {
  if (!isPlainObject(reply)) return false;
  if ("parts" in reply) return true;
  for (const key in reply) {
    if (!Object.hasOwn(REPLY_KEYS, key) || reply[key] === null) return false;
  }
  const { text, reasoning, toolCalls } = reply;
  if (text !== undefined && typeof text !== "string") return false;
  if (reasoning !== undefined && typeof reasoning !== "string") return false;
  if (toolCalls === undefined) return true;
  if (!Array.isArray(toolCalls)) return false;
  for (const call of toolCalls) {
    if (!isPlainObject(call)) return false;
    for (const key in call) {
      if (!Object.hasOwn(TOOL_CALL_KEYS, key) || call[key] === null) return false;
    }
    if (typeof call.name !== "string") return false;
    if (call.id !== undefined && typeof call.id !== "string") return false;
  }
  return true;
}

/**
 * Checks a reply a fake is to answer with (a script's turn, or what a function gave): an object
 * with known keys only (`txt` is a `TypeError` with a did-you-mean, not an empty answer), text
 * as strings, each tool call named. A whole `ModelResponse` (it has `parts`) is the loop's to
 * check, as any provider's answer is.
 */
export function checkReply(
  where: string | (() => string),
  reply: unknown,
): asserts reply is TurnReply | ModelResponse {
  if (isFitReply(reply)) return;
  const at = typeof where === "string" ? where : where();
  throwWhy(at, reply);
  throw new TypeError(`${at}: not a reply a fake can give`); // throwWhy found no words for it
}

/**
 * Throws the `TypeError` that says what is wrong with a reply `isFitReply` refused; returns for
 * a fit one (exported for the test that holds the two to agreeing).
 */
export function throwWhy(where: string, reply: unknown): void {
  if (!isPlainObject(reply)) {
    throw new TypeError(
      `${where}: expected a reply { text?, reasoning?, toolCalls?, finishReason?, usage? } or a ModelResponse { parts, finishReason, usage }, got ${kindOf(reply)}`,
    );
  }
  if ("parts" in reply) return;
  checkKeys(where, reply, REPLY_KEY_LIST, { content: "text", tool_calls: "toolCalls" });
  for (const key of ["text", "reasoning"] as const) {
    if (reply[key] !== undefined && typeof reply[key] !== "string") {
      throw new TypeError(`${where}: \`${key}\` must be a string, got ${kindOf(reply[key])}`);
    }
  }
  const { toolCalls } = reply;
  if (toolCalls === undefined) return;
  if (!Array.isArray(toolCalls)) {
    throw new TypeError(`${where}: \`toolCalls\` must be an array, got ${kindOf(toolCalls)}`);
  }
  for (let index = 0; index < toolCalls.length; index++) {
    const call: unknown = toolCalls[index];
    const at = `${where}: toolCalls[${index}]`;
    checkKeys(at, call, TOOL_CALL_KEY_LIST, { arguments: "args", input: "args" });
    const { name, id } = call as Record<string, unknown>;
    // An empty name is allowed: a script may play a model that sends one.
    if (typeof name !== "string") {
      throw new TypeError(`${at}: \`name\` must be the tool's name, a string, got ${kindOf(name)}`);
    }
    if (id !== undefined && typeof id !== "string") {
      throw new TypeError(`${at}: \`id\` must be a string, got ${kindOf(id)}`);
    }
  }
}

/**
 * Turns a reply (or a whole response) into a response, after `checkReply`; ids are
 * `call_<step>_<n>` when not given.
 */
export function toResponse(where: () => string, reply: unknown, step: number): ModelResponse {
  checkReply(where, reply);
  if ("parts" in reply) return reply as ModelResponse;
  const { text, reasoning, toolCalls = [], usage } = reply;
  const parts: AssistantPart[] = [];
  if (reasoning !== undefined) parts.push({ type: "reasoning", text: reasoning });
  if (text !== undefined) parts.push({ type: "text", text });
  for (let index = 0; index < toolCalls.length; index++) {
    const call = toolCalls[index]!;
    parts.push({
      type: "tool-call",
      id: call.id ?? `call_${step}_${index}`,
      name: call.name,
      args: typeof call.args === "string" ? call.args : argsText(where, index, call.args),
    });
  }
  return {
    parts,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
    usage: usage === undefined ? { inputTokens: 0, outputTokens: 0, totalTokens: 0 } : sum(usage),
  };
}

/** A scripted call's args as the JSON text a model would send; what JSON cannot write is a `TypeError`. */
function argsText(where: () => string, index: number, args: unknown): string {
  try {
    return JSON.stringify(args ?? {});
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new TypeError(`${where()}: toolCalls[${index}].args cannot be written as JSON (${why})`);
  }
}

/** Usage with the counts not given as 0; `totalTokens`, when not given, is input + output. */
function sum(usage: Partial<Usage>): Usage {
  const total: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, ...usage };
  if (usage.totalTokens === undefined) total.totalTokens = total.inputTokens + total.outputTokens;
  return total;
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
