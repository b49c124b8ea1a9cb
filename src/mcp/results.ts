import { type ToolContent, toolContent } from "tollgate";
import { McpToolError } from "./errors.js";

/** One part of an MCP tool result's `content`, as far as this package reads it. */
interface McpPart {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/** What an MCP `tools/call` answers with, as far as this package reads it. */
export interface McpCallResult {
  content?: McpPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
}

/**
 * An MCP result as a tool's output: `isError: true` throws `McpToolError` (the model sees an
 * error result); images make a `toolContent(...)` of text and images; else `structuredContent`
 * when given; else the text of the parts, joined by newlines.
 */
export function outputOf(toolName: string, result: McpCallResult): unknown {
  if (typeof result !== "object" || result === null) {
    throw new McpToolError(toolName, `MCP tool ${toolName} answered with no result`);
  }
  // Servers of the 2024-10-07 protocol answer with `toolResult`.
  if ("toolResult" in result && result.content === undefined) return result.toolResult;
  const parts = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = parts.map(textOf).join("\n").trim();
    throw new McpToolError(toolName, text || `MCP tool ${toolName} failed (isError, no message)`);
  }
  if (parts.some((part) => part.type === "image")) return contentOf(parts);
  if (result.structuredContent !== undefined) return result.structuredContent;
  return parts.map(textOf).join("\n");
}

function contentOf(parts: McpPart[]): ToolContent {
  return toolContent(
    parts.map((part) =>
      part.type === "image" && typeof part.data === "string"
        ? {
            type: "image" as const,
            image: `data:${part.mimeType ?? "image/png"};base64,${part.data}`,
            ...(part.mimeType === undefined ? {} : { mediaType: part.mimeType }),
          }
        : { type: "text" as const, text: textOf(part) },
    ),
  );
}

/** A part as text: its text, or a short line saying what it is (a resource, audio). */
function textOf(part: McpPart): string {
  switch (part.type) {
    case "text":
      return String(part.text ?? "");
    case "resource":
      return part.resource?.text ?? `[resource ${part.resource?.uri ?? ""}]`;
    case "resource_link":
      return `[resource link ${part.uri ?? ""}${part.name ? ` (${part.name})` : ""}]`;
    default:
      return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ""}]`;
  }
}
