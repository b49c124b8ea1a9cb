import type { Usage } from "tollgate";

/** Token counts as a provider reports them; anything not a number counts as not reported. */
export interface UsageCounts {
  input?: unknown;
  output?: unknown;
  total?: unknown;
  cachedInput?: unknown;
  reasoning?: unknown;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/**
 * Builds a `Usage`: missing input/output counts are 0, a missing total is their sum, and the
 * optional counts appear only when the provider reported them.
 */
export function makeUsage(counts: UsageCounts): Usage {
  const inputTokens = count(counts.input) ?? 0;
  const outputTokens = count(counts.output) ?? 0;
  const usage: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: count(counts.total) ?? inputTokens + outputTokens,
  };
  const cached = count(counts.cachedInput);
  const reasoning = count(counts.reasoning);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}
