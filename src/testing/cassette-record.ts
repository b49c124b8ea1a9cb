import type { ModelRequest, ModelStreamPart, Provider, ProviderCallOptions } from "tollgate";
import { type Cassette, type CassetteCall, writeCassette } from "./cassette-file.js";
import { type Json, toJson } from "./cassette-json.js";
import { checkRedactPaths, redactJson, redactShapes } from "./cassette-redact.js";
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
      save({ ...key, kind: "stream", parts: cassetteAnswer(redactedAcrossDeltas(parts)) });
    };
  }
  return recorder;
}

/**
 * The parts with what is shaped like a secret redacted across deltas: a key the model streamed
 * in pieces ("sk-p", "roj-…") is found in the text the pieces make (the text, the reasoning,
 * one call's args), and the pieces it spans give way to one "[redacted]". The other
 * pieces, and the number of parts, stay as streamed.
 */
export function redactedAcrossDeltas(parts: readonly ModelStreamPart[]): ModelStreamPart[] {
  const out = [...parts];
  // The deltas of one text, as the loop joins them: all text, all reasoning, one call's args.
  const texts = new Map<string, number[]>();
  out.forEach((part, i) => {
    const key =
      part.type === "text-delta"
        ? "text"
        : part.type === "reasoning-delta"
          ? "reasoning"
          : part.type === "tool-call-delta"
            ? `args ${part.index}`
            : undefined;
    if (key === undefined) return;
    const indexes = texts.get(key) ?? [];
    indexes.push(i);
    texts.set(key, indexes);
  });
  for (const indexes of texts.values()) {
    const pieces = indexes.map((i) => deltaText(out[i]!));
    const redacted = redactAcross(pieces);
    if (redacted === pieces) continue;
    indexes.forEach((i, n) => {
      out[i] = withDeltaText(out[i]!, redacted[n]!);
    });
  }
  return out;
}

function deltaText(part: ModelStreamPart): string {
  return part.type === "tool-call-delta" ? part.argsDelta : (part as { text: string }).text;
}

function withDeltaText(part: ModelStreamPart, text: string): ModelStreamPart {
  return part.type === "tool-call-delta"
    ? { ...part, argsDelta: text }
    : ({ ...part, text } as ModelStreamPart);
}

/**
 * `pieces` with the secrets of the text they make redacted: the pieces before and after the
 * changed stretch stay as they were; the redacted stretch goes into the piece it starts in.
 */
function redactAcross(pieces: readonly string[]): readonly string[] {
  const joined = pieces.join("");
  const redacted = redactShapes(joined);
  if (redacted === joined) return pieces;
  let start = 0;
  while (start < joined.length && joined[start] === redacted[start]) start++;
  let tail = 0;
  while (
    tail < joined.length - start &&
    tail < redacted.length - start &&
    joined[joined.length - 1 - tail] === redacted[redacted.length - 1 - tail]
  ) {
    tail++;
  }
  const end = joined.length - tail;
  const middle = redacted.slice(start, redacted.length - tail);
  let at = 0;
  let placed = false;
  return pieces.map((piece, n) => {
    const from = at;
    const to = at + piece.length;
    at = to;
    const before = piece.slice(0, Math.max(0, Math.min(to, start) - from));
    const after = piece.slice(Math.max(0, Math.max(from, end) - from));
    const here = !placed && (to > start || n === pieces.length - 1);
    if (here) placed = true;
    return before + (here ? middle : "") + after;
  });
}
