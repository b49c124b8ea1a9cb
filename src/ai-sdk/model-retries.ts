import { TollgateError } from "tollgate";
import { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs, sleep } from "../http/retry.js";
import { errorOf, fieldsOf } from "./model-errors.js";

/** The wait a failed call's server asked for (`retry-after-ms` / `Retry-After`), in ms. */
function askedWaitMs(error: unknown): number | undefined {
  const headers = fieldsOf(error).responseHeaders;
  if (headers === null || typeof headers !== "object") return undefined;
  const entries = Object.entries(headers).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string",
  );
  try {
    return retryAfterMs(new Headers(entries));
  } catch {
    return undefined; // a header the Headers class refuses: no wait asked for
  }
}

/**
 * Calls `attempt` (one `doGenerate`, or the start of one `doStream`) and tries it again, up to
 * `maxRetries` more times, while what it throws says `isRetryable` (an `APICallError` for 408,
 * 409, 429, a 5xx or a failed connection), as the native adapters do: the server's
 * `Retry-After` wait when it asks for one (one longer than a minute is not waited for: its
 * error is thrown at once, still `retryable`), else exponential backoff with jitter. An abort
 * stops the wait and rejects with the signal's reason. The last error is thrown as a
 * `ProviderError` (`errorOf`).
 */
export async function withRetries<T>(
  provider: string,
  maxRetries: number,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof TollgateError) throw error;
      const waitMs = askedWaitMs(error);
      const retryable = fieldsOf(error).isRetryable === true;
      if (!retryable || retry >= maxRetries || (waitMs ?? 0) > MAX_RETRY_AFTER_MS) {
        throw errorOf(provider, error);
      }
      await sleep(waitMs ?? backoffMs(retry), signal);
    }
  }
}
