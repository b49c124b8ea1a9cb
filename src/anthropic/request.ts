import type { AssistantPart, Message, ModelRequest, ToolSpec } from "tollgate";
import { defined, splitSettings } from "../http/settings.js";
import { argsObject, resultText } from "../http/tool-values.js";
import { thinkingBlock } from "./thinking.js";

type Block = Record<string, unknown>;
type WireMessage = { role: "user" | "assistant"; content: Block[] };

function assistantBlocks(parts: AssistantPart[]): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else if (part.type === "tool-call") {
      blocks.push({ type: "tool_use", id: part.id, name: part.name, input: argsObject(part.args) });
    } else {
      const block = thinkingBlock(part);
      if (block) blocks.push(block);
    }
  }
  return blocks;
}

/**
 * Maps the transcript to Messages API turns. An assistant message becomes one turn of
 * thinking (signed parts only; the API refuses unsigned ones), text and `tool_use` blocks;
 * a `tool` message becomes ONE user turn of `tool_result` blocks, right after it. Turns of the
 * same role are merged (so a user message after tool results joins their turn, after them),
 * and empty text is left out, as the API refuses both.
 */
export function anthropicMessages(messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "user") {
      push("user", message.content ? [{ type: "text", text: message.content }] : []);
    } else if (message.role === "assistant") {
      push("assistant", assistantBlocks(message.parts));
    } else {
      push(
        "user",
        message.results.map((result) => ({
          type: "tool_result",
          tool_use_id: result.toolCallId,
          content: resultText(result),
          ...(result.isError && { is_error: true }),
        })),
      );
    }
  }
  return out;
}

const anthropicTool = (tool: ToolSpec) => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.inputSchema,
});

function anthropicToolChoice(choice: NonNullable<ModelRequest["toolChoice"]>): Block {
  if (typeof choice !== "string") return { type: "tool", name: choice.name };
  return { type: choice === "required" ? "any" : choice };
}

/**
 * The Messages API request body. `max_tokens` (required by the API) is `maxOutputTokens` or
 * `defaultMaxTokens`; `seed` has no Anthropic equivalent and is not sent; other settings keys
 * (`thinking`, `top_k`, `metadata`…) are copied into the body.
 */
export function anthropicBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
  defaultMaxTokens: number,
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, stopSequences, extra } = splitSettings(
    request.settings,
  );
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(anthropicTool),
    ...(request.toolChoice && { tool_choice: anthropicToolChoice(request.toolChoice) }),
  };
  return {
    model,
    max_tokens: maxOutputTokens ?? defaultMaxTokens,
    ...(request.system && { system: request.system }),
    messages: anthropicMessages(request.messages),
    ...tools,
    ...defined({ temperature, top_p: topP, stop_sequences: stopSequences }),
    ...extra,
    ...(stream && { stream: true }),
  };
}
