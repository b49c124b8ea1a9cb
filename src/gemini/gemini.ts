import type { ModelRequest, ModelStreamPart, Provider } from "tollgate";
import { collectResponse, defineProvider } from "tollgate";
import { resolveBaseURL } from "../http/base-url.js";
import { checkHttpOptions } from "../http/options.js";
import { parseEvent, truncatedStream } from "../http/provider-errors.js";
import { withDefaultSettings } from "../http/settings.js";
import { createTransport, type HttpProviderOptions } from "../http/transport.js";
import { geminiBody } from "./request.js";
import {
  createCandidateReader,
  GENERATE_CONTENT_RESPONSE,
  type GenerateContentResponse,
} from "./response.js";

/** Where the Gemini API lives unless `baseURL` says otherwise. */
export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/** Options of `gemini`. */
export type GeminiOptions = HttpProviderOptions;

/** The resource path of a model: `models/<id>` unless the id is already a path. */
const modelPath = (model: string): string => (model.includes("/") ? model : `models/${model}`);

/**
 * A provider for the Google Gemini API (`generateContent` / `streamGenerateContent?alt=sse`):
 * function calls with generated ids, thoughts as reasoning, thought signatures kept and sent
 * back, tool schemas converted to Gemini's dialect. The key comes from `apiKey`,
 * `GEMINI_API_KEY` or `GOOGLE_API_KEY` and travels in the `x-goog-api-key` header.
 * Ask for thoughts through the settings: `{ thinkingConfig: { includeThoughts: true } }`.
 *
 * @example
 * const provider = gemini({ model: "gemini-2.5-flash" });
 */
export function gemini(options: GeminiOptions): Provider {
  checkHttpOptions("gemini", options);
  const name = "gemini";
  const transport = createTransport({
    provider: name,
    adapter: "gemini",
    baseURL: resolveBaseURL("gemini", options.baseURL, GEMINI_BASE_URL),
    headers: options.headers,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    auth: {
      apiKey: options.apiKey,
      env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
      required: true,
      headers: (key) => ({ "x-goog-api-key": key }),
    },
  });
  const path = `/${modelPath(options.model)}`;
  const body = (request: ModelRequest) =>
    geminiBody(withDefaultSettings(request, options.settings), name);

  async function* generateParts(request: ModelRequest, signal?: AbortSignal) {
    const reader = createCandidateReader(name);
    const response = await transport.json(
      `${path}:generateContent`,
      body(request),
      signal,
      GENERATE_CONTENT_RESPONSE,
    );
    for (const part of reader.read(response as GenerateContentResponse)) yield part;
    yield reader.finish();
  }

  async function* stream(
    request: ModelRequest,
    signal?: AbortSignal,
  ): AsyncGenerator<ModelStreamPart> {
    const reader = createCandidateReader(name);
    const events = transport.events(`${path}:streamGenerateContent?alt=sse`, body(request), signal);
    // Not `yield*`: over an array, an async generator wraps each value in a promise of its own.
    for await (const { data } of events) {
      const parts = reader.read(parseEvent(name, data) as GenerateContentResponse);
      for (let i = 0; i < parts.length; i++) yield parts[i]!;
    }
    if (!reader.complete) throw truncatedStream(name, "a chunk with a finishReason");
    yield reader.finish();
  }

  return defineProvider({
    name,
    model: options.model,
    supportsNativeOutput: true,
    generate: (request, { signal }) => collectResponse(generateParts(request, signal), name),
    stream: (request, { signal }) => stream(request, signal),
  });
}
