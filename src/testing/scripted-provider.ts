import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import { TollgateError } from "tollgate";
import { checkFakeOptions, fakeProvider } from "./fake-provider.js";
import type { FakeProviderOptions, ScriptedTurn, TurnReply } from "./turn.js";

/** A fake model that answers from a script, records every request, and fails loudly off-script. */
export interface ScriptedProvider extends Provider {
  /** Every request the loop sent, in order (each a fresh copy). */
  readonly requests: ModelRequest[];
  /** Turns not used yet. */
  readonly remaining: number;
  /** Throws when turns of the script were not used. */
  assertComplete(): void;
}

/**
 * A strict fake model: each call takes the next turn of the script. Running past the script
 * throws an error that names the run's step; `assertComplete()` fails on leftover turns.
 *
 * One provider may serve several runs (a run and its resume, or two runs in one test): the
 * script is one queue, consumed in call order across them, while messages and generated ids
 * (`call_<step>_<index>`) use each run's own step.
 *
 * @example
 * const provider = scriptedProvider([
 *   { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] },
 *   { text: "It is 21 °C in Oslo." },
 * ]);
 */
export function scriptedProvider(
  turns: readonly ScriptedTurn[],
  options: FakeProviderOptions = {},
): ScriptedProvider {
  if (!Array.isArray(turns)) throw new TypeError("scriptedProvider: give an array of turns");
  checkFakeOptions("scriptedProvider", options);
  const script = [...turns];
  let used = 0;
  const provider = fakeProvider(
    options,
    { name: "scripted", model: "scripted" },
    (request, { step, runId, call }) => {
      if (used >= script.length) {
        const run = runId === undefined ? "" : ` of run ${runId}`;
        throw new TollgateError(
          `scriptedProvider: the model was called for step ${step}${run} (the provider's call #${call + 1}), but the script has only ${script.length} turn(s), all used; add a turn or end the run sooner`,
        );
      }
      return reply(script[used++]!, request);
    },
  );
  // One shape for every provider: the loop reads its fields at every step (spreads here made
  // it a slow object).
  const scripted: ScriptedProvider & {
    supportsNativeOutput?: boolean;
    stream?: Provider["stream"];
  } = {
    name: provider.name,
    model: provider.model,
    requests: provider.requests,
    generate: provider.generate,
    get remaining() {
      return script.length - used;
    },
    assertComplete() {
      if (used < script.length) {
        throw new TollgateError(
          `scriptedProvider: ${script.length - used} of ${script.length} turn(s) were not used (the next one was turn #${used + 1})`,
        );
      }
    },
  };
  if (provider.supportsNativeOutput) scripted.supportsNativeOutput = true;
  if (provider.stream) scripted.stream = provider.stream;
  return scripted;
}

function reply(
  turn: ScriptedTurn,
  request: ModelRequest,
): TurnReply | ModelResponse | Promise<TurnReply | ModelResponse> {
  if (typeof turn === "function") return turn(request);
  if ("error" in turn) throw turn.error;
  return turn;
}
