import type { ModelSettings } from "tollgate";
import { ProviderError } from "tollgate";
import { noNetworkRefusal } from "../util/no-network.js";
import {
  ANY_OBJECT,
  type AnswerShape,
  answerHead,
  EVENT_STREAM,
  isEventStream,
  readShape,
  readStart,
} from "./answer.js";
import { joinURL } from "./base-url.js";
import { firstEnv } from "./env.js";
import { callError, type HttpCall, httpError, redact, unusableAnswer } from "./provider-errors.js";
import {
  backoffMs,
  isRetryableResponse,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
  sleep,
} from "./retry.js";
import { configSecrets } from "./secrets.js";
import { readSSEChunks, type SSEEvent } from "./sse.js";

/** Options every HTTP adapter takes. */
export interface HttpProviderOptions {
  /** The model id, e.g. `"gpt-4.1-mini"`. */
  model: string;
  /** The API key. When left out it is read from the provider's environment variable at each request. */
  apiKey?: string | undefined;
  /** Where the API lives; each adapter documents its default. */
  baseURL?: string | undefined;
  /** Extra headers for every request (they override the adapter's own). */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: typeof fetch | undefined;
  /**
   * Limit for one attempt in ms, from sending the request until the whole answer (the whole
   * stream, too) is read. Default 10 minutes; `0` or `Infinity` turn it off.
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt for 408/409/429/5xx, network errors and timeouts. Default 2. */
  maxRetries?: number | undefined;
  /** Default settings for every request; a request's own settings win key by key. */
  settings?: ModelSettings | undefined;
}

/** How an adapter authenticates: where its key comes from and which headers carry it. */
export interface TransportAuth {
  /** The key given in the options, if any. */
  apiKey: string | undefined;
  /** Environment variables to read the key from, in order. */
  env: readonly string[];
  /** Whether a request without a key is refused before it is sent. */
  required: boolean;
  /** The headers that carry the key. */
  headers(apiKey: string): Record<string, string>;
}

/** What `createTransport` needs. */
export interface TransportConfig
  extends Pick<HttpProviderOptions, "headers" | "fetch" | "timeoutMs" | "maxRetries"> {
  /** The provider's name, used in error messages. */
  provider: string;
  /** The adapter's function (`"openAIChat"`), named when `noNetwork()` refuses a request. Default: `provider`. */
  adapter?: string | undefined;
  /** An absolute http(s) URL, checked by `checkBaseURL`; it may have a query. */
  baseURL: string;
  auth: TransportAuth;
}

/**
 * POSTs JSON to one API, with retries, a timeout and abort. Every `ProviderError` it throws
 * about a request names its URL and holds no credential.
 */
export interface Transport {
  /**
   * POSTs `body` to `path` and returns the answer, a JSON object of `shape` (any object by
   * default). Any other 2xx answer is a `ProviderError` that shows what came instead.
   */
  json(
    path: string,
    body: unknown,
    signal?: AbortSignal,
    shape?: AnswerShape,
  ): Promise<Record<string, unknown>>;
  /**
   * POSTs `body` to `path` and yields the server-sent events of the answer; a 2xx answer that is
   * not `text/event-stream` is a `ProviderError`. Retries happen only until the stream starts;
   * stopping the iteration closes the connection.
   */
  events(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<SSEEvent>;
}

/** Default per-attempt timeout: 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Default number of retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;
const MAX_TIMER_MS = 2_147_483_647;

interface Attempt {
  readonly signal: AbortSignal;
  /** Closes the connection. */
  abort(): void;
  /** Stops the timer and lets go of the caller's signal. */
  dispose(): void;
  /** The `ProviderError` a thrown fetch or body-read error stands for. */
  failure(error: unknown): ProviderError;
}

type Outcome<T> = { value: T } | { error: ProviderError; waitMs?: number };

/** One request, ready to send as often as retries need. */
interface Prepared {
  url: string;
  init: RequestInit;
  call: HttpCall;
}

/**
 * Creates the transport an adapter sends its requests through. Keys are read lazily, never
 * logged, and scrubbed from errors, as are credentials in `headers` and in the base URL's query.
 */
export function createTransport(config: TransportConfig): Transport {
  const { provider, auth } = config;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  const configured = configSecrets(config.headers, config.baseURL);

  function startAttempt(signal: AbortSignal | undefined): Attempt {
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer =
      timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`timed out after ${timeoutMs} ms`));
          }, timeoutMs)
        : undefined;
    return {
      signal: controller.signal,
      abort: () => controller.abort(),
      dispose() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      },
      failure(error) {
        if (error instanceof ProviderError) return error;
        if (timedOut) {
          return new ProviderError(`${provider} request timed out after ${timeoutMs} ms`, {
            retryable: true,
            provider,
            cause: error,
          });
        }
        const reason = error instanceof Error && error.cause ? error.cause : error;
        return new ProviderError(
          `${provider} connection failed: ${reason instanceof Error ? reason.message : String(reason)}`,
          {
            retryable: true,
            provider,
            cause: error,
          },
        );
      },
    };
  }

  /** The request for `path`: its URL, its headers with the key, and what its errors may name. */
  function prepare(path: string, body: unknown): Prepared {
    const refusal = noNetworkRefusal(config.adapter ?? provider);
    if (refusal !== undefined) throw new ProviderError(refusal, { retryable: false, provider });
    const key = auth.apiKey ?? firstEnv(auth.env);
    if (key === undefined && auth.required) {
      throw new ProviderError(
        `${provider}: no API key; pass \`apiKey\` or set ${auth.env.join(" or ")}`,
        { retryable: false, provider },
      );
    }
    const headers = {
      "content-type": "application/json",
      ...(key !== undefined && auth.headers(key)),
      ...config.headers,
    };
    const url = joinURL(config.baseURL, path);
    const secrets = key === undefined ? configured : [key, key.trim(), ...configured];
    return {
      url,
      init: { method: "POST", headers, body: JSON.stringify(body) },
      call: { url, secrets },
    };
  }

  async function once<T>(
    request: Prepared,
    attempt: Attempt,
    accept: (response: Response, attempt: Attempt) => Promise<T>,
  ): Promise<Outcome<T>> {
    try {
      const response = await (config.fetch ?? fetch)(request.url, {
        ...request.init,
        signal: attempt.signal,
      });
      if (response.ok) return { value: await accept(response, attempt) };
      const text = redact(await response.text(), request.call.secrets);
      const retryable = isRetryableResponse(response.status, response.headers);
      const error = httpError(provider, response.status, text, retryable);
      const waitMs = retryAfterMs(response.headers);
      return waitMs === undefined ? { error } : { error, waitMs };
    } catch (error) {
      return { error: attempt.failure(error) };
    }
  }

  async function send<T>(
    request: Prepared,
    signal: AbortSignal | undefined,
    accept: (response: Response, attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    for (let retry = 0; ; retry++) {
      signal?.throwIfAborted();
      const attempt = startAttempt(signal);
      const outcome = await once(request, attempt, accept);
      if ("value" in outcome) return outcome.value;
      attempt.dispose();
      signal?.throwIfAborted();
      const { error, waitMs } = outcome;
      // A server asking for a long pause gets its error back at once, still marked retryable.
      if (!error.retryable || retry >= maxRetries || (waitMs ?? 0) > MAX_RETRY_AFTER_MS)
        throw callError(request.call, error);
      await sleep(waitMs ?? backoffMs(retry), signal);
    }
  }

  return {
    async json(path, body, signal, shape = ANY_OBJECT) {
      const request = prepare(path, body);
      return send(request, signal, async (response, attempt) => {
        try {
          const text = await response.text();
          const value = readShape(text, shape);
          if (value) return value;
          const shown = redact(text, request.call.secrets);
          throw unusableAnswer(provider, answerHead(response), shown, shape.name);
        } finally {
          attempt.dispose();
        }
      });
    },

    async *events(path, body, signal) {
      const request = prepare(path, body);
      const { response, attempt } = await send(request, signal, async (response, attempt) => {
        if (isEventStream(response)) return { response, attempt };
        const shown = redact(await readStart(response), request.call.secrets);
        throw unusableAnswer(provider, answerHead(response), shown, EVENT_STREAM);
      });
      let finished = false;
      try {
        if (!response.body) {
          throw new ProviderError(`${provider} sent an empty stream`, {
            retryable: true,
            provider,
          });
        }
        // Read here, not through `readSSE`: a generator in between costs every event promises.
        const chunks = readSSEChunks(response.body);
        try {
          for (let events = await chunks.read(); events; events = await chunks.read()) {
            for (let i = 0; i < events.length; i++) yield events[i]!;
          }
        } finally {
          chunks.release();
        }
        finished = true;
      } catch (error) {
        signal?.throwIfAborted();
        throw callError(request.call, attempt.failure(error));
      } finally {
        attempt.dispose();
        if (!finished) attempt.abort();
      }
    },
  };
}
