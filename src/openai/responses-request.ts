import type { Message, ModelRequest, ToolSpec } from "tollgate";
import { defined, splitSettings } from "../http/settings.js";
import { resultText } from "../http/tool-values.js";
import { decodeReasoningSignature } from "./reasoning-signature.js";

type InputItem = Record<string, unknown>;

/**
 * Maps the transcript to Responses API input items, in order: user and assistant text as
 * messages, reasoning parts back as `reasoning` items (only those whose signature this adapter
 * wrote), tool calls as `function_call` items and results as `function_call_output` items,
 * correlated by `call_id`.
 */
export function responsesInput(messages: Message[]): InputItem[] {
  const items: InputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") items.push({ role: "user", content: message.content });
    else if (message.role === "tool") {
      for (const result of message.results) {
        items.push({
          type: "function_call_output",
          call_id: result.toolCallId,
          output: resultText(result),
        });
      }
    } else {
      for (const part of message.parts) {
        if (part.type === "text") {
          if (part.text) items.push({ role: "assistant", content: part.text });
        } else if (part.type === "tool-call") {
          items.push({
            type: "function_call",
            call_id: part.id,
            name: part.name,
            arguments: part.args,
          });
        } else {
          const ref = decodeReasoningSignature(part.signature);
          if (!ref) continue;
          const summary = part.text ? [{ type: "summary_text", text: part.text }] : [];
          items.push({ type: "reasoning", ...ref, summary });
        }
      }
    }
  }
  return items;
}

const responsesTool = (tool: ToolSpec) => ({
  type: "function",
  name: tool.name,
  description: tool.description,
  parameters: tool.inputSchema,
  strict: false,
});

const responsesToolChoice = (choice: NonNullable<ModelRequest["toolChoice"]>) =>
  typeof choice === "string" ? choice : { type: "function", name: choice.name };

/**
 * The Responses API request body. `system` becomes `instructions`; `stopSequences` and `seed`
 * have no Responses equivalent and are not sent; other settings keys (`reasoning`, `include`,
 * `store`, `text`…) are copied into the body.
 */
export function responsesBody(
  model: string,
  request: ModelRequest,
  stream: boolean,
): Record<string, unknown> {
  const { temperature, topP, maxOutputTokens, extra } = splitSettings(request.settings);
  const tools = request.tools.length > 0 && {
    tools: request.tools.map(responsesTool),
    ...(request.toolChoice && { tool_choice: responsesToolChoice(request.toolChoice) }),
  };
  return {
    model,
    ...(request.system && { instructions: request.system }),
    input: responsesInput(request.messages),
    ...tools,
    ...defined({ temperature, top_p: topP, max_output_tokens: maxOutputTokens }),
    ...extra,
    ...(stream && { stream: true }),
  };
}
