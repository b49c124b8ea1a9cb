import type { ModelRequest, ModelResponse, ModelStreamPart, Provider } from "tollgate";
import { collectResponse, defineProvider } from "tollgate";
import { shortForm } from "../util/policy-call.js";
import { jsonDiff } from "./cassette-diff.js";
import { type CassetteCall, CassetteError, readCassette } from "./cassette-file.js";
import type { Json } from "./cassette-json.js";
import { cassetteRequest } from "./cassette-record.js";
import { checkRedactPaths, redactJson } from "./cassette-redact.js";
import { type CallKey, RunNumbers } from "./cassette-runs.js";

/**
 * A custom request match: gets the recorded request and the loop's (both as the cassette keeps
 * them: plain JSON, credentials redacted) and answers `true` (it matches), `false` (it does not:
 * the error shows the whole diff) or a text (it does not, and this is why).
 */
export type CassetteMatcher = (recorded: ModelRequest, actual: ModelRequest) => boolean | string;

/** How a replay compares the loop's request with the recorded one. */
export type CassetteMatch = "strict" | "tools-and-last-message" | CassetteMatcher;

/** Options of `replayProvider`, and of `cassette` when it replays. */
export interface ReplayOptions {
  /**
   * `"strict"` (the default): the whole request must equal the recorded one.
   * `"tools-and-last-message"`: only the tool specs and the last message must. Or a function.
   */
  match?: CassetteMatch | undefined;
}

/** A provider that replays a cassette. */
export interface ReplayProvider extends Provider {
  /** Recorded calls not replayed yet. */
  readonly remaining: number;
  /** Throws a `CassetteError` when recorded calls were not replayed. */
  assertComplete(): void;
}

const MATCHES = ["strict", "tools-and-last-message"];

/**
 * Replays the cassette at `path` (read now; a missing or malformed file is a `CassetteError`):
 * each call of the loop gets the recorded answer of its run and step — `generate` the recorded
 * response, `stream` the recorded parts in order — without touching the network. When the
 * loop's request drifts from the recorded one, the call fails with a `CassetteError` that lists
 * the differences path by path; a call the cassette has no answer for names the file, the run and
 * the step. Runs are matched by the order they first call the provider, so a run that paused and
 * was resumed replays through `resume()`.
 *
 * @example
 * const loop = new AgentLoop({ provider: replayProvider("cassettes/weather.json"), tools });
 */
export function replayProvider(path: string, options: ReplayOptions = {}): ReplayProvider {
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      'replayProvider: give the cassette\'s file path, e.g. "cassettes/weather.json"',
    );
  }
  const match = options.match ?? "strict";
  if (typeof match !== "function" && !MATCHES.includes(match)) {
    throw new TypeError(
      `replayProvider: \`match\` must be "strict", "tools-and-last-message" or a function, got ${shortForm(match)}`,
    );
  }
  const cassette = readCassette(path);
  const paths = checkRedactPaths(`cassette ${path}`, cassette.redact);
  const used = new Set<CassetteCall>();
  const runs = new RunNumbers();
  const { name, model } = cassette.provider;

  /** The recorded call for this request, checked against it. */
  const take = (request: ModelRequest, key: CallKey): CassetteCall => {
    const call = cassette.calls.find(
      (c) => !used.has(c) && c.run === key.run && c.step === key.step,
    );
    if (call === undefined) {
      throw new CassetteError(
        `cassette ${path} has no recorded call for run ${key.run}, step ${key.step} (it holds ${held(cassette.calls)}); the run went past the recording: re-record it with TOLLGATE_CASSETTES=record`,
        path,
      );
    }
    // The recording redacted again: one made before a name counted as a credential still matches.
    const recorded = redactJson(call.request, paths, true);
    const problem = drift(recorded, cassetteRequest(request, paths), match);
    if (problem !== undefined) {
      throw new CassetteError(
        `cassette ${path}: the request for run ${key.run}, step ${key.step} drifted from the recording (match: ${typeof match === "function" ? "custom" : `"${match}"`}):\n${problem}\nIf the change is intended, re-record with TOLLGATE_CASSETTES=record.`,
        path,
      );
    }
    used.add(call);
    return call;
  };

  const generate = async (
    request: ModelRequest,
    callOptions: { signal?: AbortSignal },
  ): Promise<ModelResponse> => {
    callOptions.signal?.throwIfAborted();
    const call = take(request, runs.next(callOptions));
    return call.kind === "generate"
      ? structuredClone(call.response)
      : collectResponse(iterate(parts(call)), name);
  };
  const streams = cassette.calls.some((call) => call.kind === "stream");
  // Streams only when something was recorded streamed, so the loop calls it as it did live.
  const provider: Provider = {
    name,
    model,
    ...(cassette.provider.supportsNativeOutput === true && { supportsNativeOutput: true }),
    generate,
  };
  if (streams) {
    provider.stream = async function* (request, callOptions): AsyncGenerator<ModelStreamPart> {
      callOptions.signal?.throwIfAborted();
      const call = take(request, runs.next(callOptions));
      if (call.kind === "stream") {
        for (const part of parts(call)) {
          callOptions.signal?.throwIfAborted();
          yield part;
        }
      } else {
        // A call recorded whole, streamed as its whole parts.
        const whole = defineProvider({
          name,
          model,
          generate: async () => structuredClone(call.response),
        });
        yield* whole.stream!(request, callOptions);
      }
    };
  }
  return {
    ...provider,
    get remaining() {
      return cassette.calls.length - used.size;
    },
    assertComplete() {
      const left = cassette.calls.filter((call) => !used.has(call));
      if (left.length > 0) {
        throw new CassetteError(
          `cassette ${path}: ${left.length} of ${cassette.calls.length} recorded call(s) were not replayed (${held(left)})`,
          path,
        );
      }
    },
  };
}

const parts = (call: CassetteCall & { kind: "stream" }): ModelStreamPart[] =>
  structuredClone(call.parts);

async function* iterate(parts: ModelStreamPart[]): AsyncGenerator<ModelStreamPart> {
  yield* parts;
}

/** The calls a cassette holds, in short: `run 0 steps 0–2, run 1 step 0`. */
function held(calls: readonly CassetteCall[]): string {
  if (calls.length === 0) return "no calls";
  const byRun = new Map<number, number[]>();
  for (const call of calls) byRun.set(call.run, [...(byRun.get(call.run) ?? []), call.step]);
  return [...byRun]
    .map(([run, steps]) =>
      steps.length === 1 ? `run ${run} step ${steps[0]}` : `run ${run} steps ${steps.join(", ")}`,
    )
    .join("; ");
}

/** Why the actual request does not match the recorded one, or `undefined` when it does. */
function drift(recorded: Json, actual: Json, match: CassetteMatch): string | undefined {
  const indent = (lines: string[]) =>
    lines.length === 0 ? undefined : lines.map((l) => `  ${l}`).join("\n");
  if (match === "strict") return indent(jsonDiff(recorded, actual));
  if (match === "tools-and-last-message")
    return indent(jsonDiff(essentials(recorded), essentials(actual)));
  let answer: unknown;
  try {
    answer = match(recorded as unknown as ModelRequest, actual as unknown as ModelRequest);
  } catch (error) {
    return `  the match function threw: ${error instanceof Error ? error.message : shortForm(error)}`;
  }
  if (answer === true) return undefined;
  if (answer === false) return indent(jsonDiff(recorded, actual)) ?? "  the match function said no";
  if (typeof answer === "string") return `  ${answer}`;
  return `  the match function answered ${shortForm(answer)}, not true, false or a reason`;
}

/** What "tools-and-last-message" compares. */
function essentials(request: Json): Json {
  const { tools = [], messages = [] } = request as { tools?: Json; messages?: Json[] };
  return { tools, lastMessage: messages.at(-1) ?? null };
}
