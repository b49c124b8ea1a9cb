import { readEnv } from "../http/env.js";
import { createTransport, type HttpProviderOptions, type Transport } from "../http/transport.js";

/** Where the OpenAI API lives unless `baseURL` or `OPENAI_BASE_URL` says otherwise. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Options shared by the OpenAI adapters. */
export interface OpenAIOptions extends HttpProviderOptions {
  /** The provider name in errors and events; default `"openai"` (e.g. `"groq"` for Groq). */
  name?: string;
}

/** The base URL in effect: the option, else `OPENAI_BASE_URL`, else the public API. */
export const openAIBaseURL = (options: Pick<OpenAIOptions, "baseURL">): string =>
  options.baseURL ?? readEnv("OPENAI_BASE_URL") ?? OPENAI_BASE_URL;

/**
 * The transport of both OpenAI adapters: `Authorization: Bearer` with the key from the options
 * or `OPENAI_API_KEY` (optional, as local servers need none), base URL from the options,
 * `OPENAI_BASE_URL`, or the public API.
 */
export function openAITransport(options: OpenAIOptions, provider: string): Transport {
  const { headers, fetch, timeoutMs, maxRetries } = options;
  return createTransport({
    headers,
    fetch,
    timeoutMs,
    maxRetries,
    provider,
    baseURL: openAIBaseURL(options),
    auth: {
      apiKey: options.apiKey,
      env: ["OPENAI_API_KEY"],
      required: false,
      headers: (key) => ({ authorization: `Bearer ${key}` }),
    },
  });
}
