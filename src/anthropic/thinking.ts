import type { AssistantPart } from "tollgate";

/**
 * Prefix of the `signature` of a reasoning part that stands for a `redacted_thinking` block:
 * such a part has empty text and the signature `"redacted_thinking:" + data`. (Real thinking
 * signatures are base64, which has no ":".)
 */
export const REDACTED_PREFIX = "redacted_thinking:";

type ReasoningPart = Extract<AssistantPart, { type: "reasoning" }>;

/** The content block that sends a reasoning part back; `undefined` for a part without signature. */
export function thinkingBlock(part: ReasoningPart): Record<string, unknown> | undefined {
  const { signature } = part;
  if (!signature) return undefined;
  if (signature.startsWith(REDACTED_PREFIX)) {
    return { type: "redacted_thinking", data: signature.slice(REDACTED_PREFIX.length) };
  }
  return { type: "thinking", thinking: part.text, signature };
}
