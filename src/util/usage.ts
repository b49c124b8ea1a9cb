import type { Usage } from "../types/messages.js";

/** A usage with every count at zero. */
export const zeroUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Adds two usages; optional counts (and `unknown`) appear in the sum when either side has them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) {
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  }
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined) {
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  }
  if (a.unknown || b.unknown) sum.unknown = true;
  return sum;
}
