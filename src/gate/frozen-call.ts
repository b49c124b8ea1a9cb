import type { ToolCall } from "../types/messages.js";

/**
 * The call as everything outside `execute` sees it: frozen, args in the model's form. The gate
 * makes it from the model's part, the call record again from a stored or approved record.
 */
export function frozenCall(id: string, name: string, args: unknown, rawArgs: string): ToolCall {
  return Object.freeze({ id, name, args, rawArgs });
}
