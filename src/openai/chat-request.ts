import type { Message, ModelRequest, ToolSpec } from "tollgate";
import { defined, splitSettings } from "../http/settings.js";
import { resultText } from "../http/tool-values.js";

/** Which body field carries `maxOutputTokens`: OpenAI's current one, or the older one local servers read. */
export type MaxTokensParam = "max_completion_tokens" | "max_tokens";

/** A Chat Completions message as sent. */
type ChatMessage = Record<string, unknown> & { role: string };

/**
 * Maps the transcript to Chat Completions messages: the system prompt first, an assistant
 * message's text and tool calls in one message (its reasoning is not sent: Chat Completions
 * takes none back), then one `tool` message per result.
 */
export function chatMessages(system: string | undefined, messages: Message[]): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") out.push({ role: "user", content: message.content });
    else if (message.role === "tool") {
      for (const result of message.results) {
        out.push({ role: "tool", tool_call_id: result.toolCallId, content: resultText(result) });
      }
    } else {
      let text = "";
      const toolCalls = [];
      for (const part of message.parts) {
        if (part.type === "text") text += part.text;
        else if (part.type === "tool-call") {
          toolCalls.push({
            id: part.id,
            type: "function",
            function: { name: part.name, arguments: part.args },
          });
        }
      }
      out.push({
        role: "assistant",
        content: text === "" && toolCalls.length > 0 ? null : text,
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      });
    }
  }
  return out;
}

const chatTool = (tool: ToolSpec) => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
});

const chatToolChoice = (choice: NonNullable<ModelRequest["toolChoice"]>) =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };

/**
 * The Chat Completions request body. Portable settings are mapped (`stopSequences` → `stop`,
 * `maxOutputTokens` → `maxTokensParam`); every other settings key is copied into the body.
 */
export function chatBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
  maxTokensParam: MaxTokensParam,
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, stopSequences, seed, extra } = splitSettings(
    request.settings,
  );
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(chatTool),
    ...(request.toolChoice && { tool_choice: chatToolChoice(request.toolChoice) }),
  };
  return {
    model,
    messages: chatMessages(request.system, request.messages),
    ...tools,
    ...defined({
      temperature,
      top_p: topP,
      [maxTokensParam]: maxOutputTokens,
      stop: stopSequences,
      seed,
    }),
    ...extra,
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  };
}
