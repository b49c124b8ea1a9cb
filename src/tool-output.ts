import type { ToolResult } from "./messages.js";

/**
 * Stores a tool's output as the model will see it: strings as they are, anything else as
 * JSON data (`undefined` → `null`), copied, so later changes to the tool's object do not reach
 * the transcript. Throws when the value cannot be JSON (a BigInt, a cycle).
 */
export function normalizeOutput(value: unknown): unknown {
  if (typeof value === "string") return value;
  const copy = plainCopy(value, 0);
  if (copy !== NOT_PLAIN) return copy === undefined ? null : copy;
  const json = JSON.stringify(value);
  return json === undefined ? null : JSON.parse(json);
}

const NOT_PLAIN = Symbol("not plain");

/**
 * The JSON form of plain data (objects, arrays, strings, numbers, booleans, null), without a
 * trip through a string; `NOT_PLAIN` for anything JSON.stringify treats specially (toJSON,
 * class instances, functions, BigInt, deep nesting), which the caller hands to JSON instead.
 */
function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : null; // + 0 turns -0 into 0, as JSON does
    case "undefined":
      return undefined;
    case "object":
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth > 64) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = item === undefined ? null : item;
    }
    return copy;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (key === "__proto__") return NOT_PLAIN;
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    if (item !== undefined) copy[key] = item;
  }
  return copy;
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
