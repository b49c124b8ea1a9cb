import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import { fakeProvider } from "./fake-provider.js";
import type { FakeProviderOptions, TurnReply } from "./turn.js";

/** What a function provider's function is told besides the request. */
export interface FunctionProviderInfo {
  /** How many times the provider was called before (0 for the first call). */
  step: number;
  signal: AbortSignal | undefined;
}

/** A fake model whose answers come from your function; records every request. */
export interface FunctionProvider extends Provider {
  readonly requests: ModelRequest[];
}

/**
 * A logic-driven fake model: the function gets each request and answers with a reply
 * (`{ text, toolCalls, ... }`) or a whole `ModelResponse`.
 *
 * @example
 * const provider = functionProvider((request) =>
 *   request.messages.length > 1 ? { text: "done" } : { toolCalls: [{ name: "ping" }] });
 */
export function functionProvider(
  respond: (
    request: ModelRequest,
    info: FunctionProviderInfo,
  ) => TurnReply | ModelResponse | Promise<TurnReply | ModelResponse>,
  options: FakeProviderOptions = {},
): FunctionProvider {
  if (typeof respond !== "function") throw new TypeError("functionProvider: give a function");
  return fakeProvider(
    { ...options, name: options.name ?? "function", model: options.model ?? "function" },
    async (request, step, signal) => respond(request, { step, signal }),
  );
}
