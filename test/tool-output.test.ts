import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeOutput } from "../src/tool-output.js";

/** What the contract says a stored output is: JSON-normalised, `undefined` → `null`. */
const viaJson = (value: unknown) => {
  const json = JSON.stringify(value);
  return json === undefined ? null : JSON.parse(json);
};

describe("normalizeOutput", () => {
  it("stores any value exactly as a JSON round trip would, strings as they are", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
        (value) => {
          const expected = typeof value === "string" ? value : viaJson(value);
          expect(normalizeOutput(value)).toStrictEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("copies: later changes to the tool's object do not reach the stored output", () => {
    const output = { list: [1, 2], nested: { a: 1 } };
    const stored = normalizeOutput(output) as typeof output;
    output.list.push(3);
    output.nested.a = 2;
    expect(stored).toEqual({ list: [1, 2], nested: { a: 1 } });
  });

  it("keeps JSON's special cases: -0, NaN, undefined members, __proto__ keys, toJSON, cycles", () => {
    expect(normalizeOutput(-0)).toBe(0);
    expect(normalizeOutput([Number.NaN, undefined, () => 1])).toEqual([null, null, null]);
    expect(normalizeOutput({ a: undefined, f: () => 1, b: 1 })).toEqual({ b: 1 });
    const proto = JSON.parse('{"__proto__": {"x": 1}}');
    expect(Object.keys(normalizeOutput(proto) as object)).toEqual(["__proto__"]);
    expect(normalizeOutput({ when: new Date(0) })).toEqual({ when: "1970-01-01T00:00:00.000Z" });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => normalizeOutput(cycle)).toThrow(TypeError);
  });
});
