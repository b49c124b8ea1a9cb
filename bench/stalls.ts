/**
 * Measurement 10: how long one delta of a hostile structured answer holds the event loop. A
 * fake model streams texts built to be costly to read as partial JSON (prose with braces, deep
 * nesting, long strings, numbers cut everywhere, wide arrays and objects) through a real
 * `loop.stream()` with structured output ("native"), in deltas of 1 to 100 characters, each in
 * its own macrotask as a socket would hand them over; the consumer reads every event, the
 * `output-delta` ones included.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { AgentLoop, type ModelStreamPart, type Provider } from "tollgate";
import { z } from "zod";
import { expectEqual } from "./harness.js";

/** One hostile answer. */
export interface HostileText {
  name: string;
  text: string;
  /** The run's output once it completes: the answer itself, or `{}` asked for again after prose. */
  output: unknown;
  /** A wide array or object: the engine grows its storage, copying it whole, as it is read. */
  wide: boolean;
}

/** What streaming one hostile answer measured. */
export interface StallReading {
  name: string;
  wide: boolean;
  chars: number;
  deltas: number;
  /** `output-delta` events of the answer. */
  outputDeltas: number;
  /**
   * The longest any one delta held the loop, in ms: from the macrotask its part arrives in to
   * the last of its events read; each delta's time is its shortest over the repeats (a time
   * slice the machine gave another process is not the delta's), then the longest is taken.
   */
  worstDeltaMs: number;
  /** The same without taking the shortest over repeats: the longest any delta held the loop in any run. */
  worstRawMs: number;
  /**
   * The end of the answer, once: the finish part to `run-finish` (the final answer parsed and
   * checked against the schema, the step recorded, the result frozen), shortest over repeats.
   */
  endMs: number;
  /** `monitorEventLoopDelay`'s longest delay (1 ms resolution) over the run, shortest over repeats. */
  loopDelayMs: number;
  /** Wall time of one run, shortest over repeats. */
  runMs: number;
}

/** A tiny seeded PRNG (LCG), so every run cuts the texts the same way. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** `piece(i)` repeated until the text reaches `chars` characters. */
function repeated(chars: number, piece: (i: number) => string): string {
  const pieces: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const next = piece(i);
    pieces.push(next);
    length += next.length;
  }
  return pieces.join("");
}

/** The hostile answers, each about `chars` characters of JSON (or prose). */
export function hostileTexts(chars: number): HostileText[] {
  const prose = repeated(chars, (i) => `Sure! {step ${i}} is [the plan], then {"maybe": ${i}. `);
  const strings = repeated(chars, () => 'line\\n caf\\u00e9 \\"quoted\\" {x} [y] \\ud83d\\ude00 ');
  const numberPieces = ["-12.5e-3", "0.000001", "1e400", "123456789012345678901234567890", "-0"];
  // Rows of 50 (the wide rows below are the wide arrays), each number cut at every place somewhere.
  const row = `[${Array.from({ length: 50 }, (_, i) => numberPieces[i % numberPieces.length]).join(",")}]`;
  const rows = Array.from(
    { length: Math.max(1, Math.floor((chars * 0.9) / (row.length + 1))) },
    () => row,
  );
  const longNumber = `1.${"0".repeat(Math.max(0, chars / 10 - 2))}1`;
  const depth = 900;
  const level = Math.max(1, Math.floor(chars / depth) - 20);
  const deep = `${'{"note":"'.concat("x".repeat(level), '","next":').repeat(depth)}null${"}".repeat(depth)}`;
  const items = Math.floor(chars / 2);
  const keys = Math.floor(chars / 14);
  const json = (name: string, text: string, wide = false): HostileText => ({
    name,
    text,
    output: JSON.parse(text),
    wide,
  });
  return [
    { name: "prose with braces (no JSON: asked again)", text: prose, output: {}, wide: false },
    json("one long string, escapes and braces in it", `{"text":"${strings}"}`),
    json(
      "numbers in rows of 50, then one of chars/10 digits",
      `{"n":[${rows.join(",")}],"long":${longNumber}}`,
    ),
    json(`nested ${depth} deep, a string at each level`, deep),
    json(
      `a wide array (${items.toLocaleString("en-US")} items)`,
      `{"a":[${"1,".repeat(items - 1)}1]}`,
      true,
    ),
    json(
      `a wide object (${keys.toLocaleString("en-US")} keys)`,
      `{${Array.from({ length: keys }, (_, i) => `"k${i}":${i % 10}`).join(",")}}`,
      true,
    ),
  ];
}

/** `text` cut into deltas of 1 to 100 characters. */
function deltasOf(text: string): string[] {
  const random = seeded(24);
  const deltas: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * 100);
    deltas.push(text.slice(at, at + size));
    at += size;
  }
  return deltas;
}

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One streamed run of the answer: each delta's time (ms), the end's, and the events. */
async function streamOnce(hostile: HostileText, deltas: readonly string[]) {
  const times = new Float64Array(deltas.length + 1);
  /** The delta being handed over (its index; the finish part's is `deltas.length`), or -1. */
  let current = -1;
  let started = 0;
  let calls = 0;
  const provider: Provider = {
    name: "hostile",
    model: "hostile",
    supportsNativeOutput: true,
    generate: () => Promise.reject(new Error("the loop should stream")),
    async *stream() {
      // The first answer is the hostile one; asked again (after prose), the model answers `{}`.
      const texts = calls++ === 0 ? deltas : ["{}"];
      for (let i = 0; i < texts.length; i++) {
        await nextMacrotask();
        current = calls === 1 ? i : -1;
        started = performance.now();
        yield { type: "text-delta", text: texts[i]! } satisfies ModelStreamPart;
      }
      await nextMacrotask();
      current = calls === 1 ? deltas.length : -1;
      started = performance.now();
      yield { type: "finish", finishReason: "stop", usage } satisfies ModelStreamPart;
    },
  };
  const loop = new AgentLoop({
    provider,
    output: z.record(z.string(), z.unknown()),
    maxRetries: 1,
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const begun = performance.now();
  let outputDeltas = 0;
  let output: unknown;
  for await (const event of loop.stream("Answer.")) {
    if (current >= 0) times[current] = Math.max(times[current]!, performance.now() - started);
    if (event.type === "output-delta" && event.step === 0) outputDeltas++;
    if (event.type === "run-finish") output = event.result.output;
  }
  const runMs = performance.now() - begun;
  delay.disable();
  if (JSON.stringify(output) !== JSON.stringify(hostile.output)) {
    throw new Error(`${hostile.name}: the run's output is not the answer streamed`);
  }
  if (outputDeltas === 0) throw new Error(`${hostile.name}: no output-delta event`);
  return { times, runMs, loopDelayMs: delay.max / 1e6, outputDeltas };
}

/** Streams each hostile answer `repeats` times; see `StallReading`. */
export async function stallReadings(chars: number, repeats: number): Promise<StallReading[]> {
  const readings: StallReading[] = [];
  for (const hostile of hostileTexts(chars)) {
    const deltas = deltasOf(hostile.text);
    let best: Float64Array | undefined;
    let worstRawMs = 0;
    let runMs = Number.POSITIVE_INFINITY;
    let loopDelayMs = Number.POSITIVE_INFINITY;
    let outputDeltas = 0;
    for (let r = 0; r < repeats; r++) {
      const run = await streamOnce(hostile, deltas);
      if (r > 0)
        expectEqual(`${hostile.name}: output-delta events`, run.outputDeltas, outputDeltas);
      outputDeltas = run.outputDeltas;
      best = best ? best.map((ms, i) => Math.min(ms, run.times[i]!)) : run.times;
      for (let i = 0; i < deltas.length; i++) worstRawMs = Math.max(worstRawMs, run.times[i]!);
      runMs = Math.min(runMs, run.runMs);
      loopDelayMs = Math.min(loopDelayMs, run.loopDelayMs);
    }
    readings.push({
      name: hostile.name,
      wide: hostile.wide,
      chars: hostile.text.length,
      deltas: deltas.length,
      outputDeltas,
      worstDeltaMs: best!.subarray(0, deltas.length).reduce((a, b) => Math.max(a, b), 0),
      worstRawMs,
      endMs: best![deltas.length]!,
      loopDelayMs,
      runMs,
    });
  }
  return readings;
}
