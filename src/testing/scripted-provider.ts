import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import { TollgateError } from "tollgate";
import { fakeProvider } from "./fake-provider.js";
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
 * throws an error that names the step; `assertComplete()` fails on leftover turns.
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
  const script = turns.slice();
  let used = 0;
  const provider = fakeProvider(
    { ...options, name: options.name ?? "scripted", model: options.model ?? "scripted" },
    async (request, step) => {
      if (used >= script.length) {
        throw new TollgateError(
          `scriptedProvider: the model was called for step ${step} (its call #${step + 1}; steps count from 0 when one run uses the provider), but the script has only ${script.length} turn(s); add a turn or end the run sooner`,
        );
      }
      return reply(script[used++]!, request);
    },
  );
  return {
    name: provider.name,
    model: provider.model,
    requests: provider.requests,
    ...(provider.supportsNativeOutput ? { supportsNativeOutput: true } : {}),
    generate: provider.generate,
    ...(provider.stream ? { stream: provider.stream } : {}),
    get remaining() {
      return script.length - used;
    },
    assertComplete() {
      if (used < script.length) {
        throw new TollgateError(
          `scriptedProvider: ${script.length - used} of ${script.length} turn(s) were not used (the next one was for step ${used})`,
        );
      }
    },
  };
}

async function reply(
  turn: ScriptedTurn,
  request: ModelRequest,
): Promise<TurnReply | ModelResponse> {
  if (typeof turn === "function") return turn(request);
  if ("error" in turn) throw turn.error;
  return turn;
}
