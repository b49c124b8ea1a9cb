import { resolveBaseURL } from "../http/base-url.js";
import { checkHttpOptions, type OptionRule, optional } from "../http/options.js";
import { createTransport, type HttpProviderOptions, type Transport } from "../http/transport.js";

/** Where the OpenAI API lives unless `baseURL` or `OPENAI_BASE_URL` says otherwise. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Options shared by the OpenAI adapters. */
export interface OpenAIOptions extends HttpProviderOptions {
  /** The provider name in errors and events; default `"openai"` (e.g. `"groq"` for Groq). */
  name?: string | undefined;
}

/**
 * Checks the options of an OpenAI adapter (`where` names it in errors): those of every HTTP
 * adapter, `name`, and the adapter's own `rules`.
 */
export function checkOpenAIOptions(
  where: string,
  options: unknown,
  rules: Record<string, OptionRule> = {},
): void {
  checkHttpOptions(where, options, {
    name: optional((value) => typeof value === "string" && value !== "", "a non-empty string"),
    ...rules,
  });
}

/**
 * The base URL in effect, checked (`where` names the adapter in errors): the option, else
 * `OPENAI_BASE_URL`, else the public API.
 */
export const openAIBaseURL = (options: Pick<OpenAIOptions, "baseURL">, where: string): string =>
  resolveBaseURL(where, options.baseURL, OPENAI_BASE_URL, "OPENAI_BASE_URL");

/**
 * The transport of both OpenAI adapters: `Authorization: Bearer` with the key from the options
 * or `OPENAI_API_KEY` (optional, as local servers need none), to `baseURL` (see `openAIBaseURL`).
 * `OPENAI_API_KEY` is read only when the requests go to OpenAI itself, or to the server that
 * `OPENAI_BASE_URL` names: an explicit `baseURL` elsewhere (OpenRouter, Groq, a local server)
 * gets only an `apiKey` given with it, so the OpenAI key never travels to another host.
 */
export function openAITransport(
  options: OpenAIOptions,
  provider: string,
  baseURL: string,
  adapter: "openAIChat" | "openAIResponses",
): Transport {
  const { headers, fetch, timeoutMs, maxRetries } = options;
  return createTransport({
    headers,
    fetch,
    timeoutMs,
    maxRetries,
    provider,
    adapter,
    baseURL,
    auth: {
      apiKey: options.apiKey,
      env: options.baseURL === undefined || isOpenAI(baseURL) ? ["OPENAI_API_KEY"] : [],
      required: false,
      headers: (key) => ({ authorization: `Bearer ${key}` }),
    },
  });
}

/** Whether a base URL is OpenAI's own API. */
function isOpenAI(baseURL: string): boolean {
  return new URL(baseURL).origin === new URL(OPENAI_BASE_URL).origin;
}
