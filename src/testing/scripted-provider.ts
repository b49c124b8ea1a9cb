import type { ModelRequest, ModelResponse, Provider } from "tollgate";
import { TollgateError } from "tollgate";
import { checkFakeOptions, fakeProvider } from "./fake-provider.js";
import type { FakeProviderOptions, ScriptedTurn, TurnReply } from "./turn.js";
import { checkReply } from "./turn.js";

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
  script.forEach(checkTurn);
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
    false,
  );
  return new Scripted(provider, script, () => used);
}

/**
 * The provider `scriptedProvider` returns. A class, so that `remaining` is a getter of its
 * prototype: a getter in an object literal costs about 0.4 µs to make, and tests make a
 * provider per run.
 */
class Scripted implements ScriptedProvider {
  readonly name: string;
  readonly model: string;
  readonly requests: ModelRequest[];
  readonly generate: Provider["generate"];
  declare readonly stream?: NonNullable<Provider["stream"]>;
  declare readonly supportsNativeOutput?: boolean;
  readonly #script: readonly ScriptedTurn[];
  readonly #used: () => number;

  constructor(
    provider: Provider & { requests: ModelRequest[] },
    script: readonly ScriptedTurn[],
    used: () => number,
  ) {
    this.name = provider.name;
    this.model = provider.model;
    this.requests = provider.requests;
    this.generate = provider.generate;
    if (provider.stream) this.stream = provider.stream;
    if (provider.supportsNativeOutput) this.supportsNativeOutput = true;
    this.#script = script;
    this.#used = used;
  }

  get remaining(): number {
    return this.#script.length - this.#used();
  }

  assertComplete(): void {
    const used = this.#used();
    const { length } = this.#script;
    if (used < length) {
      throw new TollgateError(
        `scriptedProvider: ${length - used} of ${length} turn(s) were not used (the next one was turn #${used + 1})`,
      );
    }
  }
}

/**
 * Checks a turn of the script when the provider is made, so a typo (`{ txt: "hi" }`) fails the
 * test at its script, not as an empty answer. A function's answer is checked when it answers.
 */
function checkTurn(turn: ScriptedTurn, index: number): void {
  if (typeof turn === "function") return;
  const where = () => `scriptedProvider: turn #${index + 1}`;
  if (turn !== null && typeof turn === "object" && "error" in turn) {
    const extra = Object.keys(turn).filter((key) => key !== "error");
    if (extra.length > 0) {
      throw new TypeError(
        `${where()}: an error turn is { error } alone; it also has ${extra.map((key) => `\`${key}\``).join(", ")}`,
      );
    }
    return;
  }
  checkReply(where, turn);
}

function reply(
  turn: ScriptedTurn,
  request: ModelRequest,
): TurnReply | ModelResponse | Promise<TurnReply | ModelResponse> {
  if (typeof turn === "function") return turn(request);
  if ("error" in turn) throw turn.error;
  return turn;
}
