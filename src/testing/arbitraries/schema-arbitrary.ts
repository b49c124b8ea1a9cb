import * as fc from "fast-check";
import {
  ANY_TYPE_ASSERTIONS,
  NON_CONSTRAINING,
  NUMBER_ASSERTIONS,
  STRING_ASSERTIONS,
} from "../../util/json-schema-keywords.js";

/** Keywords that describe a schema without constraining what it accepts: they are read past. */
const annotations = NON_CONSTRAINING;

/** The keywords each part of a schema generates from; any other is an error naming it. */
const handled: Record<string, readonly string[]> = {
  any: [...ANY_TYPE_ASSERTIONS, "anyOf", "oneOf"],
  object: ["properties", "required", "additionalProperties"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  string: STRING_ASSERTIONS,
  number: NUMBER_ASSERTIONS,
  integer: NUMBER_ASSERTIONS,
  boolean: [],
  null: [],
};

/** String formats generated as such (a `pattern`, when given too, wins). */
const formats: Record<string, () => fc.Arbitrary<string>> = {
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  uuid: () => fc.uuid(),
  "date-time": () => fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  date: () => fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  hostname: () => fc.domain(),
};

/** A JSON Schema this module cannot generate values for: `path` says where, in `tool`'s schema. */
export class SchemaArbitraryError extends TypeError {
  override name = "SchemaArbitraryError";
}

/**
 * A fast-check arbitrary of values valid against a JSON Schema (the subset tools use: objects
 * with required and optional properties, arrays, strings with lengths, patterns and common
 * formats, numbers and integers with bounds and `multipleOf`, booleans, null, `enum`, `const`,
 * `anyOf`/`oneOf` and type lists). A keyword it cannot generate (`$ref`, `allOf`, `not`,
 * `patternProperties`, ...) throws `SchemaArbitraryError` naming it and where it is.
 *
 * @example
 * fc.sample(arbitraryOfSchema({ type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] }), 3);
 */
export function arbitraryOfSchema(schema: unknown, where = "schema"): fc.Arbitrary<unknown> {
  if (schema === true) return fc.jsonValue({ maxDepth: 2 });
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SchemaArbitraryError(
      `${where}: a JSON Schema must be an object or true, got ${JSON.stringify(schema)}`,
    );
  }
  const s = schema as Record<string, unknown>;
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) {
    if (s.enum.length === 0)
      throw new SchemaArbitraryError(`${where}: an empty enum has no values`);
    return fc.constantFrom(...(s.enum as unknown[]));
  }
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives !== undefined) {
    const key = s.anyOf !== undefined ? "anyOf" : "oneOf";
    if (!Array.isArray(alternatives) || alternatives.length === 0) {
      throw new SchemaArbitraryError(`${where}.${key}: must be a non-empty array`);
    }
    unknownKeywords(s, handled.any!, where);
    return fc.oneof(
      ...alternatives.map((alt, i) => arbitraryOfSchema(alt, `${where}.${key}[${i}]`)),
    );
  }
  const types = Array.isArray(s.type)
    ? (s.type as unknown[])
    : s.type === undefined
      ? []
      : [s.type];
  if (types.length === 0) {
    unknownKeywords(s, [], where);
    return fc.jsonValue({ maxDepth: 2 });
  }
  const allowed = new Set(handled.any);
  for (const type of types) {
    const keys = handled[String(type)];
    if (type === "any" || keys === undefined) {
      throw new SchemaArbitraryError(`${where}: cannot generate type ${JSON.stringify(type)}`);
    }
    for (const key of keys) allowed.add(key);
  }
  unknownKeywords(s, [...allowed], where);
  return fc.oneof(...types.map((type) => ofType(String(type), s, where)));
}

function unknownKeywords(s: Record<string, unknown>, allowed: readonly string[], where: string) {
  for (const key of Object.keys(s)) {
    if (annotations.has(key) || allowed.includes(key) || key === "type") continue;
    throw new SchemaArbitraryError(
      `${where}: cannot generate values for the keyword "${key}" (arbitraryTurns handles ${[...new Set(Object.values(handled).flat())].join(", ")}, enum and const)`,
    );
  }
}

function ofType(type: string, s: Record<string, unknown>, where: string): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "string":
      return stringOf(s, where);
    case "integer":
    case "number":
      return numberOf(type === "integer", s, where);
    case "array": {
      const items = s.items === undefined ? true : s.items;
      if (Array.isArray(items))
        throw new SchemaArbitraryError(`${where}.items: tuple items cannot be generated`);
      const item = arbitraryOfSchema(items, `${where}.items`);
      const minLength = count(s.minItems, `${where}.minItems`) ?? 0;
      const maxLength = count(s.maxItems, `${where}.maxItems`) ?? minLength + 3;
      return s.uniqueItems === true
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
        throw new SchemaArbitraryError(`${where}.properties: must be an object`);
      }
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      const missing = required.filter((key) => !(key in properties));
      if (missing.length > 0) {
        throw new SchemaArbitraryError(
          `${where}: required ${missing.join(", ")} has no schema in properties`,
        );
      }
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) {
        model[key] = arbitraryOfSchema(property, `${where}.properties.${key}`);
      }
      return fc.record(model, { requiredKeys: required });
    }
  }
}

function stringOf(s: Record<string, unknown>, where: string): fc.Arbitrary<string> {
  const minLength = count(s.minLength, `${where}.minLength`) ?? 0;
  const maxLength = count(s.maxLength, `${where}.maxLength`);
  const lengthOk = (text: string) =>
    [...text].length >= minLength && (maxLength === undefined || [...text].length <= maxLength);
  if (typeof s.pattern === "string") {
    let pattern: RegExp;
    try {
      pattern = new RegExp(s.pattern, "u");
    } catch (error) {
      throw new SchemaArbitraryError(
        `${where}.pattern: not a valid regular expression (${(error as Error).message})`,
      );
    }
    return fc.stringMatching(pattern).filter(lengthOk);
  }
  if (s.format !== undefined) {
    const format = formats[String(s.format)];
    if (!format) {
      throw new SchemaArbitraryError(
        `${where}.format: cannot generate format ${JSON.stringify(s.format)} (known: ${Object.keys(formats).join(", ")})`,
      );
    }
    return format().filter(lengthOk);
  }
  return fc.string(maxLength === undefined ? { minLength } : { minLength, maxLength });
}

function numberOf(
  integer: boolean,
  s: Record<string, unknown>,
  where: string,
): fc.Arbitrary<number> {
  const bound = (key: string) => {
    const value = s[key];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new SchemaArbitraryError(`${where}.${key}: must be a finite number`);
    }
    return value;
  };
  const minimum = bound("minimum");
  const maximum = bound("maximum");
  const exclusiveMinimum = bound("exclusiveMinimum");
  const exclusiveMaximum = bound("exclusiveMaximum");
  const multipleOf = bound("multipleOf");
  if (integer || multipleOf !== undefined) {
    const step = multipleOf ?? 1;
    if (step <= 0) throw new SchemaArbitraryError(`${where}.multipleOf: must be above 0`);
    let low = Number.MIN_SAFE_INTEGER;
    let high = Number.MAX_SAFE_INTEGER;
    if (minimum !== undefined) low = Math.max(low, Math.ceil(minimum / step));
    if (exclusiveMinimum !== undefined)
      low = Math.max(low, Math.floor(exclusiveMinimum / step) + 1);
    if (maximum !== undefined) high = Math.min(high, Math.floor(maximum / step));
    if (exclusiveMaximum !== undefined)
      high = Math.min(high, Math.ceil(exclusiveMaximum / step) - 1);
    if (step !== 1) {
      low = Math.max(low, Math.ceil(Number.MIN_SAFE_INTEGER / step));
      high = Math.min(high, Math.floor(Number.MAX_SAFE_INTEGER / step));
    }
    if (low > high)
      throw new SchemaArbitraryError(
        `${where}: no ${integer ? "integer" : "number"} fits its bounds`,
      );
    const k = fc.integer({ min: low, max: high });
    return step === 1 ? k : k.map((n) => n * step);
  }
  const options: fc.DoubleConstraints = { noNaN: true, noDefaultInfinity: true };
  const min = exclusiveMinimum ?? minimum;
  const max = exclusiveMaximum ?? maximum;
  if (min !== undefined) options.min = min;
  if (max !== undefined) options.max = max;
  if (exclusiveMinimum !== undefined) options.minExcluded = true;
  if (exclusiveMaximum !== undefined) options.maxExcluded = true;
  if (min !== undefined && max !== undefined && min > max) {
    throw new SchemaArbitraryError(`${where}: no number fits its bounds`);
  }
  return fc.double(options).map((n) => (Object.is(n, -0) ? 0 : n));
}

function count(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < 0) {
    throw new SchemaArbitraryError(`${where}: must be a non-negative integer`);
  }
  return value as number;
}
