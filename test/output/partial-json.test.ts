import fc from "fast-check";
import { AgentLoop, type LoopEvent, type ModelStreamPart, type Provider } from "tollgate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PartialJson, parsePartialJson } from "../../src/output/partial-json.js";
import { runs } from "../support/runs.js";

/**
 * The oracle: the partial-JSON reading `output-delta` had before it was made incremental
 * (src/output/partial-json.ts up to issue 24), copied as it was. It tries every prefix of the
 * text from the longest down, closing its open string, arrays and objects, until one parses:
 * what it reads is the contract, and its cost (every prefix again on every delta) is the bug.
 */
function oracleParse(text: string): unknown {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const body = text.slice(start);
  for (let end = body.length; end > 0; end--) {
    const closed = oracleClose(body.slice(0, end));
    if (closed === undefined) continue;
    try {
      return JSON.parse(closed);
    } catch {
      // cut one more character and try again
    }
  }
  return undefined;
}

function oracleClose(text: string): string | undefined {
  const open: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") open.push("}");
    else if (char === "[") open.push("]");
    else if (char === "}" || char === "]") {
      if (open.pop() !== char) return undefined;
      if (open.length === 0) return text.slice(0, i + 1);
    }
  }
  let closed = text;
  if (inString) closed = `${escaped ? closed.slice(0, -1) : closed}"`;
  closed = closed.replace(/[\s,]+$/, "");
  return closed + open.reverse().join("");
}

/** The oracle's events: after each delta, the value when its JSON differs from the last one sent. */
function oracleEvents(deltas: readonly string[]): unknown[] {
  const events: unknown[] = [];
  let text = "";
  let shown = "";
  for (const delta of deltas) {
    text += delta;
    const value = oracleParse(text);
    if (value === undefined || JSON.stringify(value) === shown) continue;
    shown = JSON.stringify(value);
    events.push(value);
  }
  return events;
}

/** A value's text with what `JSON.stringify` would hide shown: `-0`, `Infinity`, key order kept. */
const exact = (value: unknown) =>
  JSON.stringify(value, (_key, item) =>
    Object.is(item, -0) || (typeof item === "number" && !Number.isFinite(item))
      ? `number ${item === 0 ? "-0" : item}`
      : item,
  );

/** The text cut at the given points (sorted, deduplicated) into deltas. */
const cut = (text: string, points: number[]) => {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const deltas: string[] = [];
  let from = 0;
  for (const point of [...at, text.length]) {
    if (point > from) deltas.push(text.slice(from, point));
    from = Math.max(from, point);
  }
  return deltas;
};

/** Characters that make JSON, and that break it: prose, control and non-JSON space characters. */
const noise = fc.constantFrom(
  ...'{}[]":,\\ \n\t-+.0123456789eEtrufalsn xyz',
  "\\u",
  "\\u00e9",
  "\\ud83d",
  "\u00a0",
  "\u2028",
  "\u0001",
  "1e400",
  "-0",
  '"__proto__"',
  "```json\n",
);
const noisyText = fc.array(noise, { maxLength: 40 }).map((pieces) => pieces.join(""));
/** Number tokens cut anywhere: exponents, fractions, signs, leading zeros, out of range. */
const numberText = fc.stringMatching(/^-?(0|[1-9]\d{0,25})(\.\d{0,25})?([eE][+-]?\d{0,4})?$/);
/** A JSON value as a model writes it, with prose and braces before and after, and maybe a stray character inside. */
const streamedJson = fc
  .record({
    value: fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }),
    indent: fc.constantFrom(undefined, 1, "\t"),
    before: fc.oneof(
      fc.constant(""),
      noisyText,
      fc.constantFrom("Sure: ", "```json\n", "a {b} c "),
    ),
    after: fc.oneof(fc.constant(""), noisyText),
    stray: fc.option(fc.tuple(fc.nat(), noise)),
  })
  .map(({ value, indent, before, after, stray }) => {
    const json = JSON.stringify(value, null, indent);
    const text = `${before}${typeof value === "object" ? json : `[${json}]`}${after}`;
    if (stray === null) return text;
    const at = stray[0] % (text.length + 1);
    return text.slice(0, at) + stray[1] + text.slice(at);
  });
const anyText = fc.oneof(
  streamedJson,
  noisyText,
  numberText.map((n) => `{"n": ${n}`),
  numberText.map((n) => `[${n}, ${n}]`),
);
const streamedText = anyText.chain((text) =>
  fc.array(fc.nat(), { maxLength: 12 }).map((points) => ({ text, deltas: cut(text, points) })),
);

describe("PartialJson: the value so far, read incrementally", () => {
  it("after every delta, equals the oracle's reading of the text so far, and says when it changed", () => {
    fc.assert(
      fc.property(streamedText, ({ deltas }) => {
        const json = new PartialJson();
        let text = "";
        let before = exact(undefined);
        for (const delta of deltas) {
          json.push(delta);
          text += delta;
          const changed = json.changed;
          const now = exact(json.value());
          expect(now).toBe(exact(oracleParse(text)));
          if (now !== before) expect(changed).toBe(true);
          before = now;
        }
      }),
      { numRuns: runs(2000) },
    );
  });

  it("parsePartialJson reads a whole text as the oracle does", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(exact(parsePartialJson(text))).toBe(exact(oracleParse(text)));
      }),
      { numRuns: runs(2000) },
    );
  });

  it("values are frozen all the way down, and what is read whole is shared, not copied", () => {
    const json = new PartialJson();
    json.push('{"done": {"a": [1, 2]}, "open": [3, {"b": "x');
    const first = json.value() as { done: object; open: unknown[] };
    json.push('y"}');
    const second = json.value() as typeof first;
    expect(second).toEqual({ done: { a: [1, 2] }, open: [3, { b: "xy" }] });
    expect(first.open).toEqual([3, { b: "x" }]);
    expect(second.done).toBe(first.done);
    for (const value of [first, first.done, first.open, first.open[1], second.open]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
  });

  it("a key named __proto__ is an own field, as JSON.parse makes it", () => {
    const value = parsePartialJson('{"__proto__": {"admin": true}, "b": 1') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "b"]);
    expect((value as { admin?: unknown }).admin).toBeUndefined();
  });

  it("a number millions of digits long reads as JSON.parse reads it, at every cut", () => {
    for (const text of [
      `1${"0".repeat(400)}e-400`,
      `0.${"0".repeat(350)}${"123456789".repeat(100)}e30`,
      `-${"9".repeat(2_000_000)}`,
      `1.${"0".repeat(2_000_000)}1`,
      `2.5e${"0".repeat(1000)}3`,
      `4.9${"4".repeat(1000)}e-324`,
    ]) {
      const json = new PartialJson();
      json.push("[");
      for (let i = 0; i < text.length; i += 100_000) json.push(text.slice(i, i + 100_000));
      expect((json.value() as number[])[0]).toBe(JSON.parse(text));
    }
  });

  it("costs each delta its own length: 3 MB of hostile text in 1-to-100-character deltas reads in well under seconds", () => {
    const hostile = [
      `Sure! {here is} the plan ${"with {braces} and [brackets] ".repeat(20_000)}`,
      `{"text": "${'caf\\u00e9 \\"quoted\\"\\n'.repeat(40_000)}`,
      `[${"-12.5e-3, 0.000, 1e400, ".repeat(30_000)}`,
    ];
    const started = performance.now();
    for (const text of hostile) {
      const json = new PartialJson();
      for (let i = 0, n = 1; i < text.length; i += n, n = (n * 7) % 100 || 1) {
        json.push(text.slice(i, i + n));
        if (json.openSize < 10_000) json.value();
      }
      expect(json.value()).toBeDefined();
    }
    // The old reading, every prefix again on every delta, takes minutes on 4 kB of the first text.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("stream(): output-delta events", () => {
  /** A provider streaming `deltas` as the text of its answer, then `{}` (a valid answer) if asked again. */
  const streaming = (deltas: readonly string[]): Provider => {
    let calls = 0;
    return {
      name: "deltas",
      model: "m",
      supportsNativeOutput: true,
      generate: () => Promise.reject(new Error("streams only")),
      async *stream() {
        const texts = calls++ === 0 ? deltas : ["{}"];
        for (const text of texts) yield { type: "text-delta", text } satisfies ModelStreamPart;
        yield {
          type: "finish",
          finishReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        };
      },
    };
  };
  const outputDeltas = async (deltas: readonly string[]) => {
    const loop = new AgentLoop({
      provider: streaming(deltas),
      output: z.record(z.string(), z.unknown()),
      maxRetries: 1,
    });
    const events: LoopEvent[] = [];
    for await (const event of loop.stream("?")) events.push(event);
    return events.flatMap((event) =>
      event.type === "output-delta" && event.step === 0 ? [event.output] : [],
    );
  };

  it("a short answer: one event per delta that changes the value, exactly the oracle's", async () => {
    await fc.assert(
      fc.asyncProperty(streamedText, async ({ deltas }) => {
        const events = await outputDeltas(deltas);
        expect(events.map(exact)).toEqual(oracleEvents(deltas).map(exact));
      }),
      { numRuns: runs(300) },
    );
  });

  it("a long answer streamed a character at a time: fewer events, each one the oracle would have sent, the last the whole value", async () => {
    const value = { items: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item ${i}` })) };
    const text = JSON.stringify(value);
    const events = await outputDeltas([...text]);
    expect(events.length).toBeGreaterThan(100);
    expect(events.length).toBeLessThan(text.length / 20);
    expect(events[events.length - 1]).toEqual(value);
    for (const shown of events.filter((_, i) => i % 97 === 0)) {
      const items = (shown as Partial<typeof value>).items ?? [];
      const whole = Math.max(0, items.length - 1); // the last item may be cut off
      expect(items.slice(0, whole)).toEqual(value.items.slice(0, whole));
    }
  });

  it("a value too wide to copy at every look is shown again once whole, or as it is when the answer ends cut off", async () => {
    const items = Array.from({ length: 30_000 }, (_, i) => i);
    const whole = JSON.stringify({ wide: items });
    const cutOff = `${whole.slice(0, -2)}, "las`;
    for (const text of [whole, cutOff]) {
      const deltas = Array.from({ length: Math.ceil(text.length / 8) }, (_, i) =>
        text.slice(i * 8, i * 8 + 8),
      );
      const events = await outputDeltas(deltas);
      const widths = events.map((event) => (event as { wide?: unknown[] }).wide?.length ?? 0);
      expect(widths.filter((width) => width > 10_000 && width < 30_000)).toEqual([]);
      expect(events[events.length - 1]).toEqual({
        wide: text === whole ? items : [...items, "las"],
      });
    }
  });

  it("nesting deeper than 1000 is read no deeper, and the run goes on", async () => {
    const text = `{"deep": ${"[".repeat(3000)}1${"]".repeat(3000)}}`;
    const events = await outputDeltas([text.slice(0, 1500), text.slice(1500)]);
    let depth = 0;
    for (let value = events[events.length - 1]; value !== undefined; depth++) {
      value = Array.isArray(value) ? value[0] : (value as { deep?: unknown }).deep;
    }
    expect(depth).toBe(1000);
  });
});
