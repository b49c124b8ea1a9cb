import { isPlainObject } from "../util/values.js";

/**
 * What a provider attached to a reasoning part (Anthropic's signature, OpenAI's encrypted
 * reasoning item…) kept as the part's `signature`: the JSON text of its `providerMetadata`, or
 * `undefined` when there is none. It goes back as the part's `providerOptions` on the next call,
 * so signed reasoning survives a multi-step run.
 */
export function reasoningSignature(providerMetadata: unknown): string | undefined {
  if (!isPlainObject(providerMetadata) || Object.keys(providerMetadata).length === 0) {
    return undefined;
  }
  return JSON.stringify(providerMetadata);
}

/**
 * A reasoning part's `providerOptions` from its `signature`, when the signature is what
 * `reasoningSignature` wrote; a signature from another adapter (opaque text) is not sent.
 */
export function reasoningOptions(
  signature: string | undefined,
): Record<string, Record<string, unknown>> | undefined {
  if (signature === undefined || !signature.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(signature);
    if (isPlainObject(value) && Object.values(value).every(isPlainObject)) {
      return value as Record<string, Record<string, unknown>>;
    }
  } catch {
    // Not ours: fall through.
  }
  return undefined;
}
