import { checkKeys, shownValue } from "./util/option-keys.js";

/**
 * Caps on what one run may use, counted over the whole run (across `resume()`, in any
 * process). A limit stops the model call or tool execution that would go past it, and the run
 * ends with status `"limit_reached"`: no model call once `modelCalls` calls were made or a
 * token count has reached its limit (or is `unknown`: a provider that reports no usage fails a
 * token limit closed); no tool once `toolCalls` tools ran.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools, limits: { toolCalls: 10, totalTokens: 50_000 } });
 */
export interface UsageLimits {
  /** Model calls (steps) per run, at least 1. */
  modelCalls?: number | undefined;
  /** Tool executions per run (calls that reached `execute`), at least 0. */
  toolCalls?: number | undefined;
  /** Input tokens per run, summed over its model calls, at least 1. */
  inputTokens?: number | undefined;
  /** Output tokens per run, at least 1. */
  outputTokens?: number | undefined;
  /** Total tokens per run, at least 1. */
  totalTokens?: number | undefined;
}

/** The name of one usage limit. */
export type LimitName = keyof UsageLimits;

/** The limit that ended a run: its name, its value, and how much was used when it stopped. */
export interface ReachedLimit {
  name: LimitName;
  value: number;
  used: number;
  /**
   * `true` for a token limit the provider gave no counts to check (its `usage` was `unknown`):
   * the run stopped before the next model call rather than go past the limit unseen, and `used`
   * is only what was reported.
   */
  unknown?: true;
}

/** What a run has used so far of the limits that are not tokens (tokens are in `usage`). */
export interface CallCounts {
  /** Model calls made. */
  modelCalls: number;
  /** Tool executions started (a call whose outcome is unknown after a crash counts). */
  toolCalls: number;
}

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
