import { defineProvider, type ModelRequest, type Provider } from "tollgate";
import { optional } from "../http/options.js";
import { withDefaultSettings } from "../http/settings.js";
import { chatBody, type MaxTokensParam } from "./chat-request.js";
import { CHAT_COMPLETION, chatResponse } from "./chat-response.js";
import { chatStreamParts } from "./chat-stream.js";
import {
  checkOpenAIOptions,
  OPENAI_BASE_URL,
  type OpenAIOptions,
  openAIBaseURL,
  openAITransport,
} from "./openai-transport.js";

/** Options of `openAIChat`. */
export interface OpenAIChatOptions extends OpenAIOptions {
  /**
   * The body field for `maxOutputTokens`. Default: `max_completion_tokens` for api.openai.com
   * (its reasoning models refuse `max_tokens`), `max_tokens` for any other server.
   */
  maxTokensParam?: MaxTokensParam | undefined;
}

/**
 * A provider for the OpenAI Chat Completions API, and so for every server that speaks it:
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, xAI… (set `baseURL`). Streams with
 * `stream_options.include_usage`; settings keys it does not map (e.g. `reasoning_effort`,
 * `parallel_tool_calls`) are copied into the request body.
 *
 * @example
 * const provider = openAIChat({ model: "gpt-4.1-mini" }); // key from OPENAI_API_KEY
 * const local = openAIChat({ model: "qwen3:8b", baseURL: "http://localhost:11434/v1" });
 */
export function openAIChat(options: OpenAIChatOptions): Provider {
  checkOpenAIOptions("openAIChat", options, {
    maxTokensParam: optional(
      (value) => value === "max_completion_tokens" || value === "max_tokens",
      '"max_completion_tokens" or "max_tokens"',
    ),
  });
  const name = options.name ?? "openai";
  const baseURL = openAIBaseURL(options, "openAIChat");
  const transport = openAITransport(options, name, baseURL, "openAIChat");
  const maxTokensParam =
    options.maxTokensParam ??
    (baseURL.startsWith(OPENAI_BASE_URL) ? "max_completion_tokens" : "max_tokens");
  const body = (request: ModelRequest, stream: boolean) =>
    chatBody(
      options.model,
      withDefaultSettings(request, options.settings),
      stream,
      maxTokensParam,
      name,
    );
  return defineProvider({
    name,
    model: options.model,
    supportsNativeOutput: true,
    generate: async (request, { signal }) =>
      chatResponse(
        name,
        await transport.json("/chat/completions", body(request, false), signal, CHAT_COMPLETION),
      ),
    // The request is built on the first read, so one that cannot be built fails there, as others do.
    stream: (request, { signal }) =>
      chatStreamParts(name, () =>
        transport.events("/chat/completions", body(request, true), signal),
      ),
  });
}
