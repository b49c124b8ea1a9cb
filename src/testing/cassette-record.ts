import type { ModelRequest, ModelStreamPart, Provider, ProviderCallOptions } from "tollgate";
import { type Cassette, type CassetteCall, writeCassette } from "./cassette-file.js";
import { type Json, toJson } from "./cassette-json.js";
import { checkRedactPaths, redactJson } from "./cassette-redact.js";
import { RunNumbers } from "./cassette-runs.js";

/** Options of `recordProvider`, and of `cassette` when it records. */
export interface RecordOptions {
  /**
   * More request fields to redact, as paths: dot-separated keys, `*` for any key or index
   * (`"settings.user"`, `"messages.*.content"`). API keys, auth headers, `settings.headers`
   * and every key named like a credential are always redacted.
   */
  redact?: string[] | undefined;
}

/** The request as a cassette keeps it: plain JSON, credentials and `redact` paths redacted. */
export const cassetteRequest = (request: ModelRequest, paths: readonly string[][]): Json =>
  redactJson(toJson(request, "request"), paths, true);

/** `value` (a response or stream parts) as a cassette keeps it: JSON, no `raw`, credentials redacted. */
function cassetteAnswer<T>(value: T): T {
  return redactJson(toJson(value, "response"), [], false) as T;
}

const withoutRaw = <T extends { raw?: unknown }>({ raw: _raw, ...rest }: T): Omit<T, "raw"> => rest;

/**
 * Wraps a real provider: each call goes through unchanged, and the request (as the loop sent
 * it) with its response — the whole `ModelResponse` of `generate`, the parts of `stream` in
 * order — is written to the cassette at `path`, keyed by run and step. The file is rewritten
 * (atomically, its folder created) after each call, as sorted, indented JSON, so a re-recording
 * shows as a small git diff. Credentials never reach it (see `RecordOptions.redact`); the
 * provider's `raw` answers are left out. A call that fails, or a stream the loop stops reading,
 * is not recorded.
 *
 * @example
 * const provider = recordProvider(openAIChat({ model: "gpt-4.1-mini" }), "cassettes/weather.json");
 */
export function recordProvider(
  real: Provider,
  path: string,
  options: RecordOptions = {},
): Provider {
  if (typeof real?.generate !== "function") {
    throw new TypeError("recordProvider: give the provider to record (an object with generate())");
  }
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      'recordProvider: give the cassette\'s file path, e.g. "cassettes/weather.json"',
    );
  }
  const paths = checkRedactPaths("recordProvider", options.redact);
  const runs = new RunNumbers();
  const cassette: Cassette = {
    tollgateCassette: 1,
    provider: {
      name: real.name,
      model: real.model,
      ...(real.supportsNativeOutput === true && { supportsNativeOutput: true }),
    },
    ...(options.redact?.length && { redact: options.redact }),
    calls: [],
  };
  const save = (call: CassetteCall) => {
    cassette.calls.push(call);
    cassette.calls.sort((a, b) => a.run - b.run || a.step - b.step);
    writeCassette(path, cassette);
  };
  const start = (request: ModelRequest, callOptions: ProviderCallOptions) => ({
    ...runs.next(callOptions),
    request: cassetteRequest(request, paths),
  });

  const recorder: Provider = {
    name: real.name,
    model: real.model,
    ...(real.supportsNativeOutput === true && { supportsNativeOutput: true }),
    async generate(request, callOptions) {
      const key = start(request, callOptions);
      const response = await real.generate(request, callOptions);
      save({ ...key, kind: "generate", response: cassetteAnswer(withoutRaw(response)) });
      return response;
    },
  };
  const stream = real.stream?.bind(real);
  if (stream) {
    recorder.stream = async function* (request, callOptions) {
      const key = start(request, callOptions);
      const parts: ModelStreamPart[] = [];
      for await (const part of stream(request, callOptions)) {
        parts.push(part.type === "finish" ? withoutRaw(part) : part);
        yield part;
      }
      save({ ...key, kind: "stream", parts: cassetteAnswer(parts) });
    };
  }
  return recorder;
}
