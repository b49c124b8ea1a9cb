/** What a Responses API reasoning item needs to be sent back. */
export interface ReasoningItemRef {
  id: string;
  encrypted_content?: string;
}

/**
 * Encodes a Responses API reasoning item into a reasoning part's `signature`: the JSON text
 * `{"id":"rs_…","encrypted_content":"…"}` (`encrypted_content` only when the API returned it,
 * i.e. with `include: ["reasoning.encrypted_content"]`). With it the item goes back to the API
 * in later requests, as reasoning models require across tool calls.
 */
export function encodeReasoningSignature(item: {
  id?: unknown;
  encrypted_content?: unknown;
}): string | undefined {
  if (typeof item.id !== "string") return undefined;
  const ref: ReasoningItemRef = { id: item.id };
  if (typeof item.encrypted_content === "string") ref.encrypted_content = item.encrypted_content;
  return JSON.stringify(ref);
}

/** Decodes a signature written by `encodeReasoningSignature`; `undefined` for any other string. */
export function decodeReasoningSignature(
  signature: string | undefined,
): ReasoningItemRef | undefined {
  if (!signature?.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(signature) as Partial<ReasoningItemRef>;
    if (typeof value.id !== "string") return undefined;
    return typeof value.encrypted_content === "string"
      ? { id: value.id, encrypted_content: value.encrypted_content }
      : { id: value.id };
  } catch {
    return undefined;
  }
}
