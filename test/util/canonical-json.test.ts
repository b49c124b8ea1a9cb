import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hmacHex, sameHex, sha256Hex } from "../../src/util/canonical-json.js";
import { runs } from "../support/runs.js";

/** A copy of JSON data with object keys inserted in sorted order (reversed, with `reverse`). */
function sortedCopy(value: unknown, reverse = false): unknown {
  if (Array.isArray(value)) return value.map((item) => sortedCopy(item, reverse));
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value).sort();
  if (reverse) keys.reverse();
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of keys) copy[key] = sortedCopy((value as Record<string, unknown>)[key], reverse);
  return copy;
}

/** An array index ("0", "12"): `JSON.stringify` writes such keys first, in numeric order. */
const isIndexKey = (key: string) => String(Number(key) >>> 0) === key && key !== "4294967295";

/** JSON data whose object keys are not array indexes (`__proto__` included). */
const jsonData = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.string({ unit: "binary" }).filter((key) => !isIndexKey(key)),
            fc.constantFrom("__proto__", "constructor", "a", "B", "_"),
          ),
          tie("value"),
        ),
        { maxLength: 4 },
      )
      .map((entries) => {
        const object: Record<string, unknown> = {};
        for (const [key, item] of entries) {
          Object.defineProperty(object, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return object;
      }),
  ),
})).value;

describe("canonicalJson", () => {
  it("property: equals JSON.stringify of a key-sorted copy, whatever order the keys were inserted in", () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        const expected = JSON.stringify(sortedCopy(value));
        expect(canonicalJson(value)).toBe(expected);
        expect(canonicalJson(sortedCopy(value, true))).toBe(expected);
      }),
      { numRuns: runs(300) },
    );
  });

  it("property: any JSON value written and read back is the same data", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: runs(300) },
    );
  });

  it("writes each kind of JSON value", () => {
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(false)).toBe("false");
    expect(canonicalJson(1.5)).toBe("1.5");
    expect(canonicalJson('a"\n')).toBe('"a\\"\\n"');
    expect(canonicalJson([1, "a", [null, false], {}])).toBe('[1,"a",[null,false],{}]');
    expect(canonicalJson({ b: [2, 1], a: { d: null, c: true } })).toBe(
      '{"a":{"c":true,"d":null},"b":[2,1]}',
    );
  });

  it("sorts keys by UTF-16 code units, array indexes included, so equal data gives equal text", () => {
    expect(canonicalJson({ b: 1, "10": 2, "9": 3, a: 4, B: 5 })).toBe(
      '{"10":2,"9":3,"B":5,"a":4,"b":1}',
    );
    expect(canonicalJson({ "9": 3, "10": 2 })).toBe(canonicalJson({ "10": 2, "9": 3 }));
  });

  it("keeps an own __proto__ key as data", () => {
    const value = JSON.parse('{"b":1,"__proto__":{"admin":true},"a":2}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"admin":true},"a":2,"b":1}');
    expect(canonicalJson(value)).not.toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it("drops what JSON.stringify drops: undefined, functions and symbols (null in arrays and at the top)", () => {
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson(() => 1)).toBe("null");
    expect(canonicalJson(Symbol("s"))).toBe("null");
    expect(canonicalJson([undefined, () => 1, Symbol("s"), 1])).toBe("[null,null,null,1]");
    const fn = Object.assign(() => 1, { x: 1 });
    expect(canonicalJson({ a: undefined, b: fn, c: Symbol("s"), d: 1 })).toBe('{"d":1}');
    expect(canonicalJson({ n: Number.NaN, i: Number.POSITIVE_INFINITY })).toBe(
      '{"i":null,"n":null}',
    );
  });

  it("honours toJSON, and sorts what it returns", () => {
    const date = new Date(0);
    expect(canonicalJson(date)).toBe(JSON.stringify(date));
    expect(canonicalJson({ at: date })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    const custom = { toJSON: () => ({ z: 1, y: [2] }), ignored: true };
    expect(canonicalJson(custom)).toBe('{"y":[2],"z":1}');
    expect(canonicalJson({ a: { toJSON: () => undefined }, b: 1 })).toBe('{"b":1}');
  });

  it("throws on a BigInt and on a cycle; a value shared without a cycle is fine", () => {
    expect(() => canonicalJson(1n)).toThrow(
      new TypeError("canonicalJson: a BigInt cannot be written as JSON"),
    );
    expect(() => canonicalJson({ a: [2n] })).toThrow(
      new TypeError("canonicalJson: a BigInt cannot be written as JSON"),
    );
    const object: Record<string, unknown> = { a: 1 };
    object.self = object;
    expect(() => canonicalJson(object)).toThrow(
      new TypeError("canonicalJson: the value has a cycle"),
    );
    const array: unknown[] = [1];
    array.push({ back: array });
    expect(() => canonicalJson(array)).toThrow(
      new TypeError("canonicalJson: the value has a cycle"),
    );
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared, shared] })).toBe(
      '{"a":{"x":1},"b":[{"x":1},{"x":1}]}',
    );
  });
});

describe("hashes", () => {
  it("sha256Hex is the SHA-256 of the UTF-8 text", async () => {
    expect(await sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(await sha256Hex("é😀")).toBe(createHash("sha256").update("é😀").digest("hex"));
  });

  it("hmacHex takes the key as text (UTF-8) or as bytes", async () => {
    const expected = (key: string | Uint8Array, text: string) =>
      createHmac("sha256", key).update(text).digest("hex");
    expect(await hmacHex("sécret", "message")).toBe(expected("sécret", "message"));
    const raw = new Uint8Array([0, 1, 2, 250, 255]);
    expect(await hmacHex(raw, "message")).toBe(expected(raw, "message"));
    expect(await hmacHex(new TextEncoder().encode("key"), "m")).toBe(await hmacHex("key", "m"));
  });

  it("sameHex: true only for the same text", () => {
    expect(sameHex("", "")).toBe(true);
    expect(sameHex("00ff", "00ff")).toBe(true);
    expect(sameHex("00ff", "00fe")).toBe(false);
    expect(sameHex("10ff", "00ff")).toBe(false);
    expect(sameHex("ab", "abc")).toBe(false);
    expect(sameHex("abc", "ab")).toBe(false);
    expect(sameHex("", "a")).toBe(false);
  });
});
