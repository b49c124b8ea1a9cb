import { ProviderError } from "../errors.js";
import type { ModelStreamPart } from "../types/provider.js";
import { shortForm } from "../util/policy-call.js";
import { isPlainObject } from "../util/values.js";

const FINISH_REASONS = new Set([
  "stop",
  "tool-calls",
  "length",
  "content-filter",
  "error",
  "other",
]);

/**
 * Checks one part a provider streamed (or one derived from its whole response) before the
 * loop reads it. A provider that breaks the contract — a tool call without its args text, a
 * delta without an index, usage that is not numbers — gets a `ProviderError` that says which
 * part and what is wrong, never a `TypeError` from deep inside the loop.
 */
export function checkStreamPart(provider: string, part: unknown): ModelStreamPart {
  const problem = partProblem(part);
  if (problem === undefined) return part as ModelStreamPart;
  throw new ProviderError(
    `provider "${provider}" sent a stream part the loop cannot read: ${problem} (got ${shortForm(part)})`,
    { retryable: false, provider },
  );
}

/** Checks a whole response's shape before its parts are read. */
export function checkResponse(provider: string, response: unknown): void {
  if (isPlainObject(response) && Array.isArray(response.parts)) return;
  throw new ProviderError(
    `provider "${provider}" answered generate() with ${shortForm(response)}; a ModelResponse is { parts: [...], finishReason, usage }`,
    { retryable: false, provider },
  );
}

function partProblem(part: unknown): string | undefined {
  if (typeof part !== "object" || part === null) return "a part must be an object";
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case "text-delta":
      return typeof p.text === "string" ? undefined : "a text-delta needs `text` (a string)";
    case "reasoning-delta":
      if (typeof p.text !== "string") return "a reasoning-delta needs `text` (a string)";
      return optionalString(p.signature) ? undefined : "`signature` must be a string";
    case "tool-call":
      if (typeof p.name !== "string") return "a tool call needs `name` (a string)";
      if (typeof p.args !== "string") {
        return `the tool call to "${p.name}" has no \`args\` text (send the JSON text of the arguments, "" for none)`;
      }
      return optionalString(p.id)
        ? undefined
        : "a tool call's `id` must be a string (or left out to have one made)";
    case "tool-call-delta":
      if (!Number.isInteger(p.index) || (p.index as number) < 0) {
        return "a tool-call-delta needs `index` (a whole number)";
      }
      if (typeof p.argsDelta !== "string") return "a tool-call-delta needs `argsDelta` (a string)";
      return optionalString(p.id) && optionalString(p.name)
        ? undefined
        : "`id` and `name` must be strings";
    case "finish":
      if (!FINISH_REASONS.has(p.finishReason as string)) {
        return `finishReason must be one of ${[...FINISH_REASONS].join(", ")}`;
      }
      return usageProblem(p.usage);
    default:
      return `unknown part type ${shortForm(p.type)}`;
  }
}

const optionalString = (value: unknown) => value === undefined || typeof value === "string";

function usageProblem(usage: unknown): string | undefined {
  if (!isPlainObject(usage))
    return "finish needs `usage` ({ inputTokens, outputTokens, totalTokens })";
  for (const key of ["inputTokens", "outputTokens", "totalTokens"]) {
    if (!isCount(usage[key])) return `usage.${key} must be a number >= 0`;
  }
  for (const key of ["reasoningTokens", "cachedInputTokens"]) {
    if (usage[key] !== undefined && !isCount(usage[key]))
      return `usage.${key} must be a number >= 0`;
  }
  if (usage.unknown !== undefined && usage.unknown !== true) {
    return "usage.unknown must be true (the provider reported no token counts) or left out";
  }
  return undefined;
}

const isCount = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;
