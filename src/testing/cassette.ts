import type { Provider } from "tollgate";
import { shortForm } from "../util/policy-call.js";
import { CassetteError } from "./cassette-file.js";
import { type RecordOptions, recordProvider } from "./cassette-record.js";
import { type ReplayOptions, replayProvider } from "./cassette-replay.js";
import { cassetteFiles } from "./file-system.js";

/** What `cassette()` does: record live, replay offline, or replay when the file exists and else record. */
export type CassetteMode = "record" | "replay" | "auto";

/** Options of `cassette()`. */
export interface CassetteOptions extends RecordOptions, ReplayOptions {
  /** Overrides `TOLLGATE_CASSETTES`. */
  mode?: CassetteMode | undefined;
}

const MODES: readonly string[] = ["record", "replay", "auto"];

/**
 * One test, live once and offline forever: records `real` into the cassette at `path`, or
 * replays it, by `options.mode` or else the `TOLLGATE_CASSETTES` variable:
 * - `record`: calls `real` and (re)writes the cassette;
 * - `replay`: replays it, and fails when it is missing;
 * - `auto`: replays it when the file exists, else records it;
 * - unset: replays it when the file exists, else fails saying how to record it (so a test
 *   never goes to the network unless asked to).
 * Any other value is a `TypeError` (fail closed). Works with every provider.
 *
 * @example
 * const provider = cassette(openAIChat({ model: "gpt-4.1-mini" }), "test/cassettes/weather.json");
 */
export function cassette(real: Provider, path: string, options: CassetteOptions = {}): Provider {
  const { mode: given, match, redact } = options;
  const mode = given ?? modeFromEnv();
  if (!MODES.includes(mode as string)) {
    throw new TypeError(
      `cassette: \`mode\` must be "record", "replay" or "auto", got ${shortForm(mode)}`,
    );
  }
  const exists = typeof path === "string" && path !== "" && cassetteFiles().existsSync(path);
  if (mode === "record" || (mode === "auto" && !exists)) {
    return recordProvider(real, path, redact === undefined ? {} : { redact });
  }
  if (!exists && given === undefined && process.env.TOLLGATE_CASSETTES === undefined) {
    throw new CassetteError(
      `cassette ${path} does not exist; record it once by running this test with TOLLGATE_CASSETTES=record (or auto), then commit it`,
      path,
    );
  }
  const replay = replayProvider(path, match === undefined ? {} : { match });
  // A cassette answers for the model it was recorded with: another one is a drift too.
  if (replay.name !== real.name || replay.model !== real.model) {
    throw new CassetteError(
      `cassette ${path} was recorded with ${replay.name} ${replay.model}, and this test replays it for ${real.name} ${real.model}; re-record it with TOLLGATE_CASSETTES=record`,
      path,
    );
  }
  return replay;
}

/** The mode `TOLLGATE_CASSETTES` asks for; unset means replay (failing when the file is missing). */
function modeFromEnv(): CassetteMode {
  const value = process.env.TOLLGATE_CASSETTES;
  if (value === undefined || value === "") return "replay";
  if (!MODES.includes(value)) {
    throw new TypeError(
      `TOLLGATE_CASSETTES must be "record", "replay" or "auto", got ${JSON.stringify(value)}`,
    );
  }
  return value as CassetteMode;
}
