import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import { checkFakeOptions, fakeProvider } from "./fake-provider.js";
import type { FakeProviderOptions, TurnReply } from "./turn.js";

/** What a function provider's function is told besides the request. */
export interface FunctionProviderInfo {
  /**
   * The 0-based step of the run being answered (a resumed run goes on counting its own steps),
   * so one provider reused across runs sees step 0 at the start of each. Called outside a loop
   * without a step, it is `call`.
   */
  step: number;
  /** The run's id, when the loop gave one (a resumed run keeps its id). */
  runId: string | undefined;
  /** How many times this provider was called before, over every run (0 for the first call). */
  call: number;
  /** The call's signal (`ProviderCallOptions.signal`), aborted with the run. */
  signal: AbortSignal | undefined;
}

/** A fake model whose answers come from your function; records every request. */
export interface FunctionProvider extends Provider {
  readonly requests: ModelRequest[];
}

/**
 * A logic-driven fake model: the function gets each request and answers with a reply
 * (`{ text, toolCalls, ... }`) or a whole `ModelResponse`. Generated tool-call ids are
 * `call_<step>_<index>`, with the run's own step.
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
  checkFakeOptions("functionProvider", options);
  if (typeof respond !== "function") throw new TypeError("functionProvider: give a function");
  // What `respond` throws at once is a rejection all the same (the shell catches it).
  return fakeProvider(options, { name: "function", model: "function" }, respond);
}
