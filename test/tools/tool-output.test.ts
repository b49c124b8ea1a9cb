import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toJsonOutput } from "../../src/tools/tool-output.js";
import { runs } from "../support/runs.js";

/** What the contract says a stored output is: JSON-normalised, `undefined` → `null`. */
const viaJson = (value: unknown) => {
  const json = JSON.stringify(value);
  return json === undefined ? null : JSON.parse(json);
};

const stored = (value: unknown) => {
  const json = toJsonOutput(value);
  if (!json.ok) throw new Error(`refused: ${json.problem}`);
  return json.output;
};

const problemOf = (value: unknown) => {
  const json = toJsonOutput(value);
  return json.ok ? undefined : json.problem;
};

describe("toJsonOutput", () => {
  it("stores any value JSON can carry exactly as a JSON round trip would, strings as they are", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withDate: true,
          withNullPrototype: true,
          withSparseArray: true,
          withBoxedValues: true,
        }),
        (value) => {
          const expected = typeof value === "string" ? value : viaJson(value);
          expect(stored(value)).toStrictEqual(expected);
        },
      ),
      { numRuns: runs(2000) },
    );
  });

  it("refuses, naming what and where, any value holding something JSON cannot carry", () => {
    fc.assert(
      fc.property(
        fc.anything({ withDate: true, withMap: true, withSet: true, withBigInt: true }),
        (value) => {
          const json = toJsonOutput(value);
          let threwJson = false;
          try {
            JSON.stringify(value, (_key, item) => {
              if (item instanceof Map || item instanceof Set) throw new Error("unfit");
              return item;
            });
          } catch {
            threwJson = true;
          }
          // Refused exactly when JSON would fail or silently lose a Map, a Set or a BigInt.
          expect(json.ok).toBe(!threwJson);
        },
      ),
      { numRuns: runs(2000) },
    );
    expect(problemOf({ ids: [1n] })).toMatch(/a BigInt at output\.ids\[0\]/);
    expect(problemOf({ by: new Map() })).toMatch(/a Map .* at output\.by/);
    expect(problemOf([new Set([1])])).toMatch(/a Set .* at output\[0\]/);
    expect(problemOf({ f: () => 1 })).toMatch(/a function at output\.f/);
    expect(problemOf({ s: Symbol("x") })).toMatch(/a symbol at output\.s/);
    expect(problemOf({ p: Promise.resolve(1) })).toMatch(/a Promise \(did you forget an await\?\)/);
    expect(problemOf(new Error("boom"))).toMatch(/an Error/);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(problemOf(cycle)).toMatch(/a circular reference at output\.self/);
    expect(problemOf(() => 1)).toMatch(/a function at output$/);
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(problemOf(deep)).toMatch(/nesting deeper than 256 levels/);
    const throwing = {
      get x() {
        throw new Error("getter failed");
      },
    };
    expect(problemOf(throwing)).toMatch(/reading it threw: getter failed/);
  });

  it("refuses bytes (which JSON would spell out digit by digit) and says how to return an image", () => {
    const png = new Uint8Array([137, 80, 78, 71]);
    expect(problemOf(png)).toBe(
      'bytes (Uint8Array) at output (for an image return toolContent([{ type: "image", image: bytes }]); else return base64 text)',
    );
    expect(problemOf(Buffer.from("abc"))).toMatch(/^bytes \(Buffer\) at output /);
    expect(problemOf(png.buffer)).toMatch(/^bytes \(ArrayBuffer\) at output /);
    expect(problemOf({ screenshot: new Float32Array(2) })).toMatch(
      /^bytes \(Float32Array\) at output\.screenshot /,
    );
    expect(problemOf([{ type: "image", image: png }])).toMatch(
      /^bytes \(Uint8Array\) at output\[0\]\.image /,
    );
  });

  it("refuses what JSON would write as {} while it holds something: generators, streams, private fields", () => {
    function* numbers() {
      yield 1;
    }
    async function* later() {
      yield 1;
    }
    expect(problemOf(numbers())).toMatch(
      /^an iterator at output \(a generator or a stream: return an array/,
    );
    expect(problemOf({ items: later() })).toMatch(/^an iterator at output\.items/);
    expect(problemOf(new ReadableStream())).toMatch(/^an iterator at output/);
    expect(problemOf([1, 2].values())).toMatch(/^an iterator at output/);
    class Secret {
      #value = 42;
      get value() {
        return this.#value;
      }
    }
    expect(problemOf({ s: new Secret() })).toMatch(
      /^a Secret with no field JSON can see at output\.s \(its data is private or inherited; give its class toJSON\(\) or return plain data\)/,
    );
    // A class instance with fields, or with toJSON, is stored as JSON writes it.
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    expect(stored(new Point(1, 2))).toEqual({ x: 1, y: 2 });
    class Shown extends Secret {
      toJSON() {
        return { value: this.value };
      }
    }
    expect(stored(new Shown())).toEqual({ value: 42 });
    expect(stored([new String("a"), new Number(2), new Boolean(false)])).toEqual(["a", 2, false]);
  });

  it("copies: later changes to the tool's object do not reach the stored output", () => {
    const output = { list: [1, 2], nested: { a: 1 } };
    const copy = stored(output) as typeof output;
    output.list.push(3);
    output.nested.a = 2;
    expect(copy).toEqual({ list: [1, 2], nested: { a: 1 } });
    expect(copy.list).not.toBe(output.list);
  });

  it("keeps JSON's special cases: -0, NaN, undefined members, __proto__ keys, toJSON; a shared object twice is not a cycle", () => {
    expect(stored(-0)).toBe(0);
    expect(stored(undefined)).toBe(null);
    expect(stored([Number.NaN, undefined])).toEqual([null, null]);
    expect(stored({ a: undefined, b: 1 })).toEqual({ b: 1 });
    const proto = JSON.parse('{"__proto__": {"x": 1}}');
    const copy = stored(proto) as object;
    expect(Object.keys(copy)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(stored({ when: new Date(0) })).toEqual({ when: "1970-01-01T00:00:00.000Z" });
    const shared = { n: 1 };
    expect(stored({ a: shared, b: shared })).toEqual({ a: { n: 1 }, b: { n: 1 } });
  });
});
