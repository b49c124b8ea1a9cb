import { defineProvider, type ModelRequest, type Provider } from "tollgate";
import { withDefaultSettings } from "../http/settings.js";
import {
  checkOpenAIOptions,
  type OpenAIOptions,
  openAIBaseURL,
  openAITransport,
} from "./openai-transport.js";
import { responsesBody } from "./responses-request.js";
import { RESPONSE_OBJECT, responsesResponse } from "./responses-response.js";
import { responsesStreamParts } from "./responses-stream.js";

/** Options of `openAIResponses`. */
export type OpenAIResponsesOptions = OpenAIOptions;

/**
 * A provider for the OpenAI Responses API. Reasoning items come back as reasoning parts whose
 * `signature` holds the item id and its encrypted content, and go back to the API on the next
 * call, as reasoning models need across tool calls. For stateless use (`store: false`) ask for
 * the encrypted content, as below.
 *
 * @example
 * const provider = openAIResponses({
 *   model: "gpt-5-mini",
 *   settings: { store: false, include: ["reasoning.encrypted_content"] },
 * });
 */
export function openAIResponses(options: OpenAIResponsesOptions): Provider {
  checkOpenAIOptions("openAIResponses", options);
  const name = options.name ?? "openai";
  const transport = openAITransport(
    options,
    name,
    openAIBaseURL(options, "openAIResponses"),
    "openAIResponses",
  );
  const body = (request: ModelRequest, stream: boolean) =>
    responsesBody(options.model, withDefaultSettings(request, options.settings), stream, name);
  return defineProvider({
    name,
    model: options.model,
    supportsNativeOutput: true,
    generate: async (request, { signal }) =>
      responsesResponse(
        name,
        await transport.json("/responses", body(request, false), signal, RESPONSE_OBJECT),
      ),
    // The request is built on the first read, so one that cannot be built fails there, as others do.
    stream: (request, { signal }) =>
      responsesStreamParts(name, () => transport.events("/responses", body(request, true), signal)),
  });
}
