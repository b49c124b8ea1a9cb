import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import type { FakeProviderOptions, TurnReply } from "./turn.js";
import { chunkedParts, toResponse } from "./turn.js";

/** Answers one request; `step` counts the provider's calls from 0. */
export type FakeAnswer = (
  request: ModelRequest,
  step: number,
  signal: AbortSignal | undefined,
) => Promise<TurnReply | ModelResponse>;

/** The provider shell both fakes share: records requests, answers whole or streamed. */
export function fakeProvider(
  options: FakeProviderOptions & { name: string; model: string },
  answer: FakeAnswer,
): Provider & { readonly requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const chunkSize = options.chunkSize ?? 4;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new TypeError("fake provider: chunkSize must be a whole number >= 1");
  }
  const respond = async (request: ModelRequest, signal: AbortSignal | undefined) => {
    const step = requests.length;
    requests.push(request);
    signal?.throwIfAborted();
    return toResponse(await answer(request, step, signal), step);
  };
  const provider: Provider & { requests: ModelRequest[]; supportsNativeOutput?: boolean } = {
    name: options.name,
    model: options.model,
    requests,
    generate: (request, { signal }) => respond(request, signal),
  };
  if (options.supportsNativeOutput === true) provider.supportsNativeOutput = true;
  if (options.stream) {
    provider.stream = async function* (request, { signal }) {
      yield* chunkedParts(await respond(request, signal), chunkSize);
    };
  }
  return provider;
}
