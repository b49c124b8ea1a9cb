import type { LimitName, UsageLimits } from "../types/limits.js";
import { checkKeys, shownValue } from "./option-keys.js";

/** The usage limits, in the order they are checked. */
export const LIMIT_NAMES: readonly LimitName[] = [
  "modelCalls",
  "toolCalls",
  "inputTokens",
  "outputTokens",
  "totalTokens",
];

/** The smallest value each limit takes: a run may run no tool, but must call the model once. */
const MINIMUM: Record<LimitName, number> = {
  modelCalls: 1,
  toolCalls: 0,
  inputTokens: 1,
  outputTokens: 1,
  totalTokens: 1,
};

/** What other agent libraries call these limits (pydantic-ai, the Agents SDK). */
const ALIASES: Record<string, LimitName> = {
  requests: "modelCalls",
  requestLimit: "modelCalls",
  request_limit: "modelCalls",
  maxModelCalls: "modelCalls",
  maxRequests: "modelCalls",
  maxToolCalls: "toolCalls",
  toolCallsLimit: "toolCalls",
  tool_calls_limit: "toolCalls",
  input_tokens_limit: "inputTokens",
  inputTokensLimit: "inputTokens",
  maxInputTokens: "inputTokens",
  output_tokens_limit: "outputTokens",
  outputTokensLimit: "outputTokens",
  total_tokens_limit: "totalTokens",
  totalTokensLimit: "totalTokens",
  maxTotalTokens: "totalTokens",
  tokens: "totalTokens",
};

/**
 * Checks a `limits` option (`where`: "AgentLoop", "run()"): a plain object of known names,
 * each a whole number at least its minimum; a typo is refused with a did-you-mean, `null`
 * too. Returns a frozen copy holding only the limits given.
 */
export function checkLimits(where: string, limits: unknown): Readonly<UsageLimits> {
  if (limits === undefined) return NO_LIMITS;
  checkKeys(`${where} limits`, limits, LIMIT_NAMES, ALIASES);
  const checked: UsageLimits = {};
  for (const name of LIMIT_NAMES) {
    const value = (limits as UsageLimits)[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < MINIMUM[name]) {
      throw new TypeError(
        `${where}: \`limits.${name}\` must be a whole number >= ${MINIMUM[name]}, got ${shownValue(value)}`,
      );
    }
    checked[name] = value;
  }
  return Object.freeze(checked);
}

/** A run's limits: `over`'s limits where given, else `under`'s (key by key). */
export function mergeLimits(
  under: Readonly<UsageLimits>,
  over: Readonly<UsageLimits> | undefined,
): Readonly<UsageLimits> {
  if (over === undefined || Object.keys(over).length === 0) return under;
  return Object.freeze({ ...under, ...over });
}

/** No limits at all. */
export const NO_LIMITS: Readonly<UsageLimits> = Object.freeze({});
