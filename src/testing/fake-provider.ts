import type { ModelRequest, ModelResponse, Provider, ProviderCallOptions } from "tollgate";
import { abortStateOf, hasLazySignal, SIGNAL_FROM, withLazySignal } from "../util/lazy-signal.js";
import { isPromise } from "../util/maybe-promise.js";
import { checkKeys } from "../util/option-keys.js";
import type { FakeProviderOptions, TurnReply } from "./turn.js";
import { chunkedParts, toResponse } from "./turn.js";

/** Where one model call sits: the run's own step, the run, and the provider's call count. */
export interface FakeCall {
  /**
   * The 0-based step of the run this call belongs to (`ProviderCallOptions.step`; a resumed
   * run goes on counting its own steps). Called outside a loop without a step, it is `call`.
   */
  step: number;
  /** The run's id (`ProviderCallOptions.runId`), when the loop gave one. */
  runId: string | undefined;
  /** How many times this provider was called before, over every run (0 for the first call). */
  call: number;
  /** The call's signal (`ProviderCallOptions.signal`), made when first read. */
  signal: AbortSignal | undefined;
}

/** Answers one request, at once or with a promise. */
export type FakeAnswer = (
  request: ModelRequest,
  call: FakeCall,
) => TurnReply | ModelResponse | PromiseLike<TurnReply | ModelResponse>;

/**
 * The provider shell the fakes share: records requests, answers whole or streamed. Generated
 * tool-call ids are `call_<step>_<index>`, with the run's own step: unique within a run (a
 * resumed one included) and the same every time the run is played. `answerReadsSignal: false`
 * for an answer that never reads `call.signal` (its call carries none).
 */
export function fakeProvider(
  options: FakeProviderOptions,
  named: { name: string; model: string },
  answer: FakeAnswer,
  answerReadsSignal = true,
): Provider & { readonly requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const chunkSize = options.chunkSize ?? 4;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new TypeError("fake provider: chunkSize must be a whole number >= 1");
  }
  // Not an async function: an answer that is already here costs one promise, not three.
  const respond = (
    request: ModelRequest,
    given: ProviderCallOptions | undefined,
  ): Promise<ModelResponse> => {
    try {
      const call = requests.length;
      requests.push(request);
      // The loop's options make the run's signal when it is read: only an answer that reads
      // `signal` makes it.
      abortStateOf(given)?.throwIfAborted();
      const step = Number.isInteger(given?.step) && given!.step! >= 0 ? given!.step! : call;
      const runId = given?.runId;
      const fakeCall: FakeCall = !answerReadsSignal
        ? { step, runId, call, signal: undefined }
        : hasLazySignal(given)
          ? withLazySignal({ step, runId, call, [SIGNAL_FROM]: given })
          : { step, runId, call, signal: given?.signal };
      const answered = answer(request, fakeCall);
      const where = () => `${named.name}Provider: the answer for step ${step}`;
      return isPromise(answered)
        ? Promise.resolve(answered).then((reply) => toResponse(where, reply, step))
        : Promise.resolve(toResponse(where, answered, step));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const provider: Provider & { requests: ModelRequest[]; supportsNativeOutput?: boolean } = {
    name: options.name ?? named.name,
    model: options.model ?? named.model,
    requests,
    generate: (request, given) => respond(request, given),
  };
  if (options.supportsNativeOutput === true) provider.supportsNativeOutput = true;
  if (options.stream) {
    provider.stream = async function* (request, given) {
      yield* chunkedParts(await respond(request, given), chunkSize);
    };
  }
  return provider;
}

/** Every option of the fakes; a `Record` over the keys so a new option cannot be left out. */
const FAKE_OPTIONS: Record<keyof FakeProviderOptions, true> = {
  stream: true,
  chunkSize: true,
  name: true,
  model: true,
  supportsNativeOutput: true,
};

/** Checks a fake's options: an unknown key (`strem`) is a `TypeError` with a did-you-mean. */
export function checkFakeOptions(
  where: string,
  options: unknown,
  more: readonly string[] = [],
): void {
  checkKeys(where, options, [...Object.keys(FAKE_OPTIONS), ...more]);
}
