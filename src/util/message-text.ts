import type { Message, ToolContentPart, UserPart } from "../types/messages.js";

/**
 * The text of a user message's content or a tool's content parts: a string as it is, else its
 * text parts joined with newlines. For providers that take text only.
 */
export function contentText(content: string | readonly (UserPart | ToolContentPart)[]): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  for (const part of content) if (part.type === "text") texts.push(part.text);
  return texts.join("\n");
}

/** The text of an assistant message's text parts, joined ("" when there are none). */
export function textOf(message: Message | undefined): string {
  if (message?.role !== "assistant") return "";
  let text = "";
  for (const part of message.parts) if (part.type === "text") text += part.text;
  return text;
}
