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
 * optional counts appear only when the provider reported them. With no input, output or total
 * count at all (a stream without its usage chunk) the usage is `unknown`, not a silent 0.
 */
export function makeUsage(counts: UsageCounts): Usage {
  const input = count(counts.input);
  const output = count(counts.output);
  const total = count(counts.total);
  if (input === undefined && output === undefined && total === undefined) return unknownUsage();
  const inputTokens = input ?? 0;
  const outputTokens = output ?? 0;
  const usage: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: total ?? inputTokens + outputTokens,
  };
  const cached = count(counts.cachedInput);
  const reasoning = count(counts.reasoning);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** The usage of a response whose provider reported no token counts. */
const unknownUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  unknown: true,
});
