import fc from "fast-check";
import {
  AgentLoop,
  jsonSchema,
  type Message,
  PolicyError,
  tool,
  type ValidationResult,
} from "tollgate";
import { scriptedProvider } from "tollgate/testing";
import { describe, expect, it } from "vitest";
import { argsFromValue, checkArgs, parseArgs, readArgsText } from "../../src/tools/args.js";
import { runs } from "../support/runs.js";

/** A tool whose input schema answers with whatever `validate` gives (garbage included). */
const toolAnswering = (validate: (value: unknown) => unknown, name = "probe") =>
  tool({
    name,
    input: jsonSchema(
      { type: "object" },
      validate as (value: unknown) => ValidationResult<unknown>,
    ),
    execute: () => "ran",
  });

const byteLength = (text: string) => new TextEncoder().encode(text).length;
const limits = (maxBytes: number, maxDepth = 64) => ({ maxBytes, maxDepth });
const NO_DEPTH_LIMIT = 1_000;

describe("readArgsText: the byte limit", () => {
  it("an empty or blank text is no args: {}", () => {
    for (const text of ["", "  ", " \n\t "]) {
      const read = readArgsText(text, limits(1));
      expect(read).toEqual({ ok: true, args: {} });
      expect(Object.isFrozen(read.ok && read.args)).toBe(true);
    }
  });

  it("a text of exactly maxBytes bytes passes; one byte more fails and names the limit", () => {
    const text = '{"city":"Oslo"}';
    expect(readArgsText(text, limits(text.length))).toEqual({ ok: true, args: { city: "Oslo" } });
    expect(readArgsText(text, limits(text.length - 1))).toEqual({
      ok: false,
      problem: "limit",
      message: `they are larger than the limit of ${text.length - 1} bytes`,
    });
  });

  // Each character at the edges of the UTF-8 ranges: 1, 2, 3 and 4 bytes (a surrogate pair).
  const edges: [string, string, number][] = [
    ["U+007F", "\u007f", 1],
    ["U+0080", "\u0080", 2],
    ["é", "é", 2],
    ["U+07FF", "\u07ff", 2],
    ["U+0800", "\u0800", 3],
    ["€", "€", 3],
    ["U+D7FF", "\ud7ff", 3],
    ["U+E000", "\ue000", 3],
    ["U+FFFF", "\uffff", 3],
    ["U+10000 (pair D800 DC00)", "\ud800\udc00", 4],
    ["😀", "😀", 4],
    ["U+10FFFF (pair DBFF DFFF)", "\udbff\udfff", 4],
  ];
  it.each(edges)(
    "counts %s as UTF-8 does: exactly the text's bytes pass, one less fails",
    (_, char, size) => {
      expect(byteLength(char)).toBe(size);
      for (const text of [
        `{"k":"${char.repeat(5)}"}`,
        `{"k":"${char}a${char}"}`,
        `["${char}",1]`,
      ]) {
        const n = byteLength(text);
        expect(readArgsText(text, limits(n)), text).toMatchObject({ ok: true });
        expect(readArgsText(text, limits(n - 1)), text).toEqual({
          ok: false,
          problem: "limit",
          message: `they are larger than the limit of ${n - 1} bytes`,
        });
      }
    },
  );

  it("property: any JSON text passes at its UTF-8 length and fails one byte below it", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }), (value) => {
        const text = JSON.stringify(value);
        const n = byteLength(text);
        expect(readArgsText(text, limits(n, NO_DEPTH_LIMIT)).ok).toBe(true);
        expect(readArgsText(text, limits(n - 1, NO_DEPTH_LIMIT))).toMatchObject({
          ok: false,
          problem: "limit",
        });
      }),
      { numRuns: runs(300) },
    );
  });
});

describe("readArgsText: the depth limit", () => {
  const deepFail = (maxDepth: number) => ({
    ok: false,
    problem: "limit",
    message: `they are nested deeper than the limit of ${maxDepth} levels`,
  });

  it("depth exactly maxDepth passes; one level more fails and names the limit", () => {
    expect(readArgsText("[[[1]]]", limits(100, 3))).toEqual({ ok: true, args: [[[1]]] });
    expect(readArgsText("[[[[1]]]]", limits(100, 3))).toEqual(deepFail(3));
    expect(readArgsText('{"a":{"b":{"c":1}}}', limits(100, 3))).toMatchObject({ ok: true });
    expect(readArgsText('{"a":{"b":{"c":{}}}}', limits(100, 3))).toEqual(deepFail(3));
  });

  it("counts nesting, not brackets: closed siblings do not add up, whichever bracket closes them", () => {
    expect(readArgsText("[[],[],[],[]]", limits(100, 2))).toMatchObject({ ok: true });
    expect(readArgsText("[{},{},{},{}]", limits(100, 2))).toMatchObject({ ok: true });
    expect(readArgsText('{"a":[],"b":[],"c":[]}', limits(100, 2))).toMatchObject({ ok: true });
    expect(readArgsText('{"a":1,"b":2,"c":true}', limits(100, 1))).toMatchObject({ ok: true });
  });

  it("brackets inside strings, after escaped quotes and backslashes, do not count", () => {
    for (const text of [
      '{"a":"[[[[{{{{"}',
      '{"[[[[":1}',
      '{"a":"\\"[[[[{{{{"}',
      '{"a":"\\\\","b":"[[[["}',
    ]) {
      expect(readArgsText(text, limits(100, 1)), text).toEqual({
        ok: true,
        args: JSON.parse(text),
      });
    }
    // …while a bracket after a string's end counts.
    expect(readArgsText('{"a":"\\\\","b":[[1]]}', limits(100, 2))).toEqual(deepFail(2));
  });
});

describe("readArgsText: prototype keys and freezing", () => {
  it("drops __proto__ keys (spelled out or escaped) and constructor.prototype; keeps every other key", () => {
    const read = readArgsText(
      '{"__proto__":{"admin":true},"\\u005f_proto__":{"x":1},"constructor":{"prototype":{"admin":true},"name":"c"},"a":1}',
      limits(1000),
    );
    expect(read).toEqual({ ok: true, args: { constructor: { name: "c" }, a: 1 } });
    const args = (read as { args: object }).args;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.hasOwn(args, "__proto__")).toBe(false);
    expect(({} as { admin?: unknown }).admin).toBeUndefined();
  });

  it("keeps `prototype` keys outside `constructor`, and a null or primitive `constructor`", () => {
    const text =
      '{"constructor":null,"a":{"prototype":1},"b":[{"prototype":{"x":2}}],"c":{"constructor":"s","prototype":3}}';
    expect(readArgsText(text, limits(1000))).toEqual({ ok: true, args: JSON.parse(text) });
  });

  it("freezes the args all the way down", () => {
    const read = readArgsText('{"a":{"b":[{"c":1}]},"s":"text"}', limits(1000));
    const args = (read as { args: { a: { b: { c: number }[] } } }).args;
    expect(Object.isFrozen(args)).toBe(true);
    expect(Object.isFrozen(args.a)).toBe(true);
    expect(Object.isFrozen(args.a.b)).toBe(true);
    expect(Object.isFrozen(args.a.b[0])).toBe(true);
  });

  it("text that is not JSON is a json problem with the parser's message", () => {
    const read = readArgsText("{bad", limits(1000));
    expect(read).toMatchObject({ ok: false, problem: "json" });
    expect((read as { message: string }).message).not.toBe("");
  });
});

describe("argsFromValue (a hook's rewrite, a human's edit)", () => {
  it("makes a frozen JSON copy the giver can no longer change", () => {
    const given = { to: "bob", list: [1, { n: 2 }] };
    const read = argsFromValue(given, limits(1000));
    expect(read).toEqual({ ok: true, args: given });
    given.list.push(3);
    const args = (read as { args: typeof given }).args;
    expect(args.list).toEqual([1, { n: 2 }]);
    expect(Object.isFrozen(args.list)).toBe(true);
  });

  it("refuses values JSON cannot carry, saying why", () => {
    expect(argsFromValue({ n: 1n }, limits(1000))).toEqual({
      ok: false,
      problem: "json",
      message:
        "they cannot be written as JSON: they hold a BigInt at args.n (return it as a string or a number)",
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(argsFromValue(cycle, limits(1000))).toEqual({
      ok: false,
      problem: "json",
      message: "they cannot be written as JSON: they hold a circular reference at args.self",
    });
    // What JSON would write as {} (or as digits) is refused, not handed to the tool as {}.
    for (const [data, held] of [
      [new Map([[1, 2]]), "a Map"],
      [new Set([1]), "a Set"],
      [new Uint8Array([1]), "bytes (Uint8Array)"],
      [[1, 2].values(), "an iterator"],
    ] as const) {
      const read = argsFromValue({ data }, limits(1000));
      expect(read).toMatchObject({ ok: false, problem: "json" });
      expect((read as { message: string }).message).toContain(`they hold ${held}`);
      expect((read as { message: string }).message).toContain("at args.data");
    }
    // What JSON writes in its own way is read as JSON reads it.
    expect(argsFromValue({ when: new Date(0), n: Number.NaN }, limits(1000))).toEqual({
      ok: true,
      args: { when: "1970-01-01T00:00:00.000Z", n: null },
    });
    expect(argsFromValue(() => 1, limits(1000))).toEqual({
      ok: false,
      problem: "json",
      message: "a function cannot be written as JSON",
    });
    expect(argsFromValue(Symbol("s"), limits(1000))).toEqual({
      ok: false,
      problem: "json",
      message: "a symbol cannot be written as JSON",
    });
  });

  it("applies the same limits as the model's own args", () => {
    expect(argsFromValue({ a: "x".repeat(20) }, limits(20))).toMatchObject({
      ok: false,
      problem: "limit",
    });
    expect(argsFromValue([[[[1]]]], limits(100, 3))).toMatchObject({
      ok: false,
      problem: "limit",
    });
  });
});

describe("checkArgs: a schema that answers garbage is the tool definition's fault (PolicyError)", () => {
  const rejection = async (run: () => unknown) => {
    try {
      await run();
    } catch (error) {
      return error as PolicyError;
    }
    throw new Error("expected a rejection");
  };

  it("passes the schema's output on, and its issues as one message", async () => {
    expect(
      checkArgs(
        toolAnswering(() => ({ value: { n: 2 } })),
        { n: "2" },
      ),
    ).toEqual({
      ok: true,
      args: { n: "2" },
      parsed: { n: 2 },
    });
    expect(
      checkArgs(
        toolAnswering(() => ({
          issues: [{ message: "expected a number", path: ["n"] }, { message: "too short" }],
        })),
        {},
      ),
    ).toEqual({ ok: false, message: "n: expected a number; too short" });
    expect(
      checkArgs(
        toolAnswering(() => ({ issues: [] })),
        {},
      ),
    ).toEqual({
      ok: false,
      message: "the schema rejected them",
    });
    await expect(
      checkArgs(
        toolAnswering(async () => ({ value: 7 })),
        {},
      ),
    ).resolves.toEqual({
      ok: true,
      args: {},
      parsed: 7,
    });
  });

  it("a validate that throws or rejects: PolicyError with the cause and advice", async () => {
    const boom = new Error("boom");
    const message =
      "the input schema of tool probe threw: boom. A schema reports bad args as an issue (zod: refine, or ctx.addIssue in a transform), which the model reads; a throw rejects the run";
    for (const validate of [
      () => {
        throw boom;
      },
      () => Promise.reject(boom),
    ]) {
      const error = await rejection(() => checkArgs(toolAnswering(validate), {}));
      expect(error).toBeInstanceOf(PolicyError);
      expect(error.message).toBe(message);
      expect(error.callback).toBe("input.validate");
      expect(error.toolName).toBe("probe");
      expect(error.cause).toBe(boom);
    }
  });

  it("an answer that is not an object, sync or async", async () => {
    for (const [answer, kind] of [
      [42, "42"],
      ["ok", '"ok"'],
      [undefined, "undefined"],
      [null, "null"],
    ] as const) {
      for (const validate of [() => answer, async () => answer]) {
        const error = await rejection(() => checkArgs(toolAnswering(validate), {}));
        expect(error).toBeInstanceOf(PolicyError);
        expect(error.message).toBe(
          `the input schema of tool probe answered ${kind}; a Standard Schema answers { value } or { issues }`,
        );
        expect(error.callback).toBe("input.validate");
        expect(error.toolName).toBe("probe");
      }
    }
  });

  it("issues that are not an array", async () => {
    for (const issues of ["bad", { message: "m" }, null]) {
      const error = await rejection(() =>
        checkArgs(
          toolAnswering(() => ({ issues })),
          {},
        ),
      );
      expect(error).toBeInstanceOf(PolicyError);
      expect(error.message).toBe(
        "the input schema of tool probe answered issues that are not an array",
      );
      expect(error.callback).toBe("input.validate");
      expect(error.toolName).toBe("probe");
    }
  });
});

describe("parseArgs: the messages the model reads", () => {
  const probe = toolAnswering((value) =>
    typeof (value as { n?: unknown }).n === "number"
      ? { value }
      : { issues: [{ message: "expected a number", path: ["n"] }] },
  );

  it("valid args: the model's form and the schema's output", () => {
    expect(parseArgs(probe, '{"n":1}', limits(1000))).toEqual({
      ok: true,
      args: { n: 1 },
      parsed: { n: 1 },
    });
  });

  it("invalid JSON, a limit, a schema issue: what went wrong and what to do", () => {
    const json = parseArgs(probe, "{bad", limits(1000)) as { ok: false; message: string };
    expect(json.ok).toBe(false);
    expect(json.message).toMatch(
      /^invalid JSON in the arguments for tool probe: .+\. Send the arguments again as one JSON object\.$/,
    );
    expect(parseArgs(probe, '{"n":12345}', limits(10))).toEqual({
      ok: false,
      message:
        "invalid arguments for tool probe: they are larger than the limit of 10 bytes. Send the arguments again as one JSON object.",
    });
    expect(parseArgs(probe, '{"n":[[1]]}', limits(1000, 2))).toEqual({
      ok: false,
      message:
        "invalid arguments for tool probe: they are nested deeper than the limit of 2 levels. Send the arguments again as one JSON object.",
    });
    expect(parseArgs(probe, '{"n":"1"}', limits(1000))).toEqual({
      ok: false,
      message:
        "invalid arguments for tool probe: n: expected a number. Fix them and call the tool again.",
    });
  });

  it("through the loop: args over argsLimits are an error result naming the limit, and the tool does not run", async () => {
    let ran = 0;
    const echo = tool({
      name: "echo",
      input: jsonSchema({ type: "object" }),
      execute: () => {
        ran++;
        return "ok";
      },
    });
    const fits = '{"s":"ééé"}'; // 14 bytes in 11 UTF-16 units
    const provider = scriptedProvider([
      { toolCalls: [{ name: "echo", args: fits }] },
      { toolCalls: [{ name: "echo", args: '{"s":"éééé"}' }] },
      { text: "done" },
    ]);
    const loop = new AgentLoop({
      provider,
      tools: [echo],
      argsLimits: { maxBytes: byteLength(fits) },
    });
    const result = await loop.run("go");
    const outputs = result.messages.flatMap((m: Message) =>
      m.role === "tool" ? m.results.map((r) => [r.isError, r.output]) : [],
    );
    expect(outputs).toEqual([
      [false, "ok"],
      [
        true,
        "invalid arguments for tool echo: they are larger than the limit of 14 bytes. Send the arguments again as one JSON object.",
      ],
    ]);
    expect(ran).toBe(1);
  });
});

describe("a lone surrogate counts as UTF-8 writes it (U+FFFD, 3 bytes)", () => {
  it("is within the limit at exactly its encoded length, over it one byte below", () => {
    const text = `{"a":"\uD800€${"x".repeat(40)}"}`; // a lone high surrogate, then a 3-byte character
    const bytes = new TextEncoder().encode(text).length;
    const limits = (maxBytes: number) => ({ maxBytes, maxDepth: 64 });
    expect(readArgsText(text, limits(bytes)).ok).toBe(true);
    expect(readArgsText(text, limits(bytes - 1)).ok).toBe(false);
  });
});
