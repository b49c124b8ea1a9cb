import type { ToolResult } from "tollgate";

/** A tool result's output as the text providers take: strings as they are, the rest as JSON. */
export const resultText = (result: ToolResult): string =>
  typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? null);

/**
 * A tool call's JSON args as an object, for providers that take objects (Anthropic, Gemini).
 * Args that are not a JSON object (the model sent broken JSON) become `{}`.
 */
export function argsObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
