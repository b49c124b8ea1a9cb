import { defineProvider, type ModelRequest, type Provider } from "tollgate";
import { resolveBaseURL } from "../http/base-url.js";
import { checkHttpOptions, wholeNumberAtLeast } from "../http/options.js";
import { withDefaultSettings } from "../http/settings.js";
import { createTransport, type HttpProviderOptions } from "../http/transport.js";
import { anthropicBody } from "./request.js";
import { anthropicResponse, MESSAGE_OBJECT } from "./response.js";
import { anthropicStreamParts } from "./stream.js";

/** Where the Anthropic API lives unless `baseURL` says otherwise. */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
/** The `anthropic-version` header sent (override it through `headers`). */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Options of `anthropic`. */
export interface AnthropicOptions extends HttpProviderOptions {
  /** `max_tokens` when the request's settings give no `maxOutputTokens` (the API requires one). Default 4096. */
  maxTokens?: number | undefined;
}

/**
 * A provider for the Anthropic Messages API: tool use with every result of a step in one user
 * turn, extended thinking with signatures kept and sent back, streamed tool input, and
 * Anthropic's `x-should-retry` header. The key comes from `apiKey` or `ANTHROPIC_API_KEY`.
 * Enable thinking through the settings, e.g. `{ thinking: { type: "enabled", budget_tokens: 2048 } }`.
 *
 * @example
 * const provider = anthropic({ model: "claude-sonnet-4-5" });
 */
export function anthropic(options: AnthropicOptions): Provider {
  checkHttpOptions("anthropic", options, { maxTokens: wholeNumberAtLeast(1) });
  const name = "anthropic";
  const transport = createTransport({
    provider: name,
    adapter: "anthropic",
    baseURL: resolveBaseURL("anthropic", options.baseURL, ANTHROPIC_BASE_URL),
    headers: { "anthropic-version": ANTHROPIC_VERSION, ...options.headers },
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    auth: {
      apiKey: options.apiKey,
      env: ["ANTHROPIC_API_KEY"],
      required: true,
      headers: (key) => ({ "x-api-key": key }),
    },
  });
  const maxTokens = options.maxTokens ?? 4096;
  const body = (request: ModelRequest, stream: boolean) =>
    anthropicBody(
      options.model,
      withDefaultSettings(request, options.settings),
      stream,
      maxTokens,
      name,
    );
  return defineProvider({
    name,
    model: options.model,
    supportsNativeOutput: true,
    generate: async (request, { signal }) =>
      anthropicResponse(
        name,
        await transport.json("/messages", body(request, false), signal, MESSAGE_OBJECT),
      ),
    // The request is built on the first read, so one that cannot be built fails there, as others do.
    stream: (request, { signal }) =>
      anthropicStreamParts(name, () => transport.events("/messages", body(request, true), signal)),
  });
}
