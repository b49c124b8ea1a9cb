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
 * error result: the text of the parts, else the `structuredContent` as JSON); images make a
 * `toolContent(...)` of text and images; else `structuredContent` when given; else the text of
 * the parts, joined by newlines.
 */
export function outputOf(toolName: string, result: McpCallResult): unknown {
  if (typeof result !== "object" || result === null) {
    throw new McpToolError(toolName, `MCP tool ${toolName} answered with no result`);
  }
  // Servers of the 2024-10-07 protocol answer with `toolResult`.
  if ("toolResult" in result && result.content === undefined) return result.toolResult;
  const parts = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) throw errorOf(toolName, parts, result.structuredContent);
  if (parts.some((part) => part.type === "image")) return contentOf(parts);
  if (result.structuredContent !== undefined) return result.structuredContent;
  return parts.map(textOf).join("\n");
}

/**
 * The `McpToolError` of an `isError` result: its text, else its structured error as JSON (the
 * model reads what the server said either way), keeping the structured error on the error.
 */
function errorOf(
  toolName: string,
  parts: McpPart[],
  structured: Record<string, unknown> | undefined,
): McpToolError {
  const text = parts.map(textOf).join("\n").trim();
  const json = text === "" && structured !== undefined ? jsonOf(structured) : undefined;
  const message =
    text ||
    (json === undefined
      ? `MCP tool ${toolName} failed (isError, no message)`
      : `MCP tool ${toolName} failed: ${json}`);
  return new McpToolError(toolName, message, structured);
}

/** A value as JSON text, or `undefined` when JSON cannot carry it. */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
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
