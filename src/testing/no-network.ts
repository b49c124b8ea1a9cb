import { noNetworkCount, setNoNetworkCount } from "../util/no-network.js";

/** `noNetwork()`: turns the guard on and returns the function that turns it off. */
export interface NoNetwork {
  (): () => void;
  /** Turns every guard off at once (e.g. in a global teardown). */
  off(): void;
  /** Whether a guard is on. */
  isOn(): boolean;
}

/**
 * A guard for test setup: while it is on, every real adapter (`openAIChat`, `openAIResponses`,
 * `anthropic`, `gemini`, `fromAISDK`) throws a `ProviderError` naming itself and saying how to
 * record a cassette, before any request is made. Fakes and replayed cassettes are unaffected
 * (they never call a real adapter). Guards nest: each call returns its own `off`, and the
 * network is back when every guard is off. The switch is shared by every tollgate entry.
 * While `TOLLGATE_CASSETTES=record` (a test recording its cassettes), it stays off, so the same
 * test file that replays offline can record.
 *
 * @example
 * beforeAll(() => noNetwork()); // vitest runs the returned function after the file
 */
export const noNetwork: NoNetwork = Object.assign(
  (): (() => void) => {
    // Recording a cassette is the one time a test means to reach the model.
    if (recording()) return () => {};
    setNoNetworkCount(noNetworkCount() + 1);
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      setNoNetworkCount(noNetworkCount() - 1);
    };
  },
  {
    off: (): void => setNoNetworkCount(0),
    isOn: (): boolean => noNetworkCount() > 0,
  },
);

/** Whether this process records cassettes (`TOLLGATE_CASSETTES=record`). */
function recording(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return env?.TOLLGATE_CASSETTES === "record";
}
