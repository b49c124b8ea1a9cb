import type { ToolResult } from "./messages.js";

/**
 * Stores a tool's output as the model will see it: strings as they are, anything else as
 * JSON data (`undefined` → `null`). Throws when the value cannot be JSON (a BigInt, a cycle).
 */
export function normalizeOutput(value: unknown): unknown {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return value;
  if (value === undefined) return null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  const json = JSON.stringify(value);
  return json === undefined ? null : JSON.parse(json);
}

/** A successful result. */
export const okResult = (toolCallId: string, toolName: string, output: unknown): ToolResult => ({
  toolCallId,
  toolName,
  output,
  isError: false,
});

/** An error result; its output is the message the model reads. */
export const errorResult = (toolCallId: string, toolName: string, message: string): ToolResult => ({
  toolCallId,
  toolName,
  output: message,
  isError: true,
});
