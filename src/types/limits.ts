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
