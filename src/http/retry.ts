/** Longest server-requested wait (`Retry-After`) that is honoured before retrying. */
export const MAX_RETRY_AFTER_MS = 60_000;

const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Whether an HTTP status is worth retrying: 408, 409, 429 and every 5xx. */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Whether a failed response may be retried: the `x-should-retry: true|false` header (sent by
 * Anthropic and OpenAI) wins over the status code.
 */
export function isRetryableResponse(status: number, headers: Headers): boolean {
  const hint = headers.get("x-should-retry")?.trim().toLowerCase();
  if (hint === "true") return true;
  if (hint === "false") return false;
  return isRetryableStatus(status);
}

/**
 * The wait a server asks for, in ms: `retry-after-ms`, else `Retry-After` as seconds or as an
 * HTTP date. `undefined` when there is no usable header.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter for retry number `retry` (0-based): ~0.5 s, 1 s, 2 s … 8 s. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return ceiling * (1 - random() * 0.25);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
