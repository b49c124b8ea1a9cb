import {
  ANY_TYPE_ASSERTIONS,
  NON_CONSTRAINING,
  NUMBER_ASSERTIONS,
  STRING_ASSERTIONS,
  TYPE_NAMES,
} from "../util/json-schema-keywords.js";
import { regexSample, UnsupportedPattern } from "./regex-sample.js";
import { SampleProblem, sampleNumber, sampleString } from "./scalar-sample.js";
import type { Random } from "./seeded-random.js";

export { SampleProblem };

type Schema = Record<string, unknown>;

/** Keywords that only describe: never a constraint to satisfy. */
const ANNOTATIONS = NON_CONSTRAINING;
/** Keywords the sampler satisfies. Anything else is refused, naming the keyword. */
const HANDLED: ReadonlySet<string> = new Set([
  ...ANY_TYPE_ASSERTIONS,
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  ...NUMBER_ASSERTIONS,
  ...STRING_ASSERTIONS,
]);
const MAX_DEPTH = 24;

/**
 * A value valid for the JSON Schema, chosen by `random`: required properties always, optional
 * ones about half the time (none deep in a recursive schema), one branch of `anyOf`/`oneOf`,
 * `$ref` into the schema's own `$defs`/`definitions`, numbers and strings within their bounds,
 * formats (email, uri/url, uuid, date, date-time, time, ipv4, ipv6, hostname, duration),
 * `pattern` for a cheap subset of regular expressions, and `patternProperties` (names written
 * from the same subset, each value meeting every pattern its name matches). A keyword it
 * cannot satisfy (`not`, `if`, ...) throws a `SampleProblem` naming the path and the keyword;
 * it never returns a value it knows is wrong.
 */
export function sampleSchema(root: Schema, random: Random): unknown {
  return new Sampler(root, random).sample(root, "", 0);
}

class Sampler {
  constructor(
    private readonly root: Schema,
    private readonly random: Random,
  ) {}

  sample(given: unknown, path: string, depth: number): unknown {
    if (given === true || (isObject(given) && Object.keys(given).length === 0)) {
      return this.random.pick(["any", 1, true]);
    }
    if (given === false) throw new SampleProblem(path, "the schema is false: no value is valid");
    if (!isObject(given)) throw new SampleProblem(path, "the schema is not an object");
    if (depth > MAX_DEPTH) {
      throw new SampleProblem(path, `the schema nests deeper than ${MAX_DEPTH} levels`);
    }
    const schema = this.flatten(given, path);
    for (const key of Object.keys(schema)) {
      if (!HANDLED.has(key) && !ANNOTATIONS.has(key) && !key.startsWith("x-")) {
        throw new SampleProblem(path, `the keyword "${key}" is not supported`);
      }
    }
    if ("const" in schema) return schema.const;
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0) throw new SampleProblem(path, '"enum" is empty');
      return this.random.pick(schema.enum);
    }
    const type = this.typeOf(schema, path);
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return this.random.chance(0.5);
      case "integer":
      case "number":
        return sampleNumber(schema, type, path, this.random);
      case "string":
        return sampleString(schema, path, this.random);
      case "array":
        return this.array(schema, path, depth);
      default:
        return this.object(schema, path, depth);
    }
  }

  /** `$ref`, `allOf` and one branch of `anyOf`/`oneOf`, merged with the keywords beside them. */
  private flatten(schema: Schema, path: string, hops = 0): Schema {
    if (hops > MAX_DEPTH) throw new SampleProblem(path, "`$ref`s that never reach a schema");
    const { $ref, allOf, anyOf, oneOf, ...rest } = schema;
    let merged: Schema = rest;
    if ($ref !== undefined) merged = merge(this.resolve($ref, path), merged, path);
    if (allOf !== undefined) {
      if (!Array.isArray(allOf)) throw new SampleProblem(path, '"allOf" is not a list');
      for (const part of allOf) {
        if (!isObject(part)) throw new SampleProblem(path, '"allOf" holds a non-object schema');
        merged = merge(merged, this.flatten(part, path, hops + 1), path);
      }
    }
    for (const [keyword, branches] of [
      ["anyOf", anyOf],
      ["oneOf", oneOf],
    ] as const) {
      if (branches === undefined) continue;
      if (!Array.isArray(branches) || branches.length === 0) {
        throw new SampleProblem(path, `"${keyword}" is not a non-empty list`);
      }
      const branch = this.random.pick(branches);
      if (!isObject(branch))
        throw new SampleProblem(path, `"${keyword}" holds a non-object schema`);
      merged = merge(merged, this.flatten(branch, path, hops + 1), path);
    }
    const again = "$ref" in merged || "allOf" in merged || "anyOf" in merged || "oneOf" in merged;
    return again ? this.flatten(merged, path, hops + 1) : merged;
  }

  private resolve(ref: unknown, path: string): Schema {
    if (typeof ref !== "string" || !ref.startsWith("#")) {
      throw new SampleProblem(
        path,
        `"$ref" ${JSON.stringify(ref)} is not a reference into the schema itself`,
      );
    }
    let target: unknown = this.root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      target = isObject(target) || Array.isArray(target) ? (target as Schema)[key] : undefined;
    }
    if (target === true) return {};
    if (!isObject(target)) throw new SampleProblem(path, `"$ref" ${ref} does not resolve`);
    return target;
  }

  private typeOf(schema: Schema, path: string): string {
    let types: string[];
    if (typeof schema.type === "string") types = [schema.type];
    else if (Array.isArray(schema.type)) types = schema.type.filter((t) => typeof t === "string");
    else types = inferredTypes(schema);
    if (schema.nullable === true && !types.includes("null")) types.push("null");
    if (types.length === 0) throw new SampleProblem(path, '"type" is an empty list');
    const nonNull = types.filter((t) => t !== "null");
    // null sometimes, when allowed; another type otherwise.
    if (nonNull.length === 0 || (types.includes("null") && this.random.chance(0.25))) return "null";
    const type = this.random.pick(nonNull);
    if (!(TYPE_NAMES as readonly string[]).includes(type)) {
      throw new SampleProblem(path, `unknown type "${type}"`);
    }
    return type;
  }

  private array(schema: Schema, path: string, depth: number): unknown[] {
    const prefix = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    const min = typeof schema.minItems === "number" ? schema.minItems : 0;
    let max = typeof schema.maxItems === "number" ? schema.maxItems : min + 3;
    if (rest === false) max = Math.min(max, prefix.length);
    if (min > max)
      throw new SampleProblem(
        path,
        `no length fits "minItems"/"maxItems"${rest === false ? " and the fixed items" : ""}`,
      );
    const deep = depth > MAX_DEPTH / 2;
    const length = deep ? min : this.random.int(min, Math.min(max, min + 3));
    for (let attempt = 0; ; attempt++) {
      const items = Array.from({ length }, (_, i) =>
        this.sample(i < prefix.length ? prefix[i] : (rest ?? {}), `${path}/${i}`, depth + 1),
      );
      if (schema.uniqueItems !== true) return items;
      if (new Set(items.map((item) => JSON.stringify(item))).size === items.length) return items;
      if (attempt === 20)
        throw new SampleProblem(path, `no ${length} distinct items found for "uniqueItems"`);
    }
  }

  private object(schema: Schema, path: string, depth: number): Record<string, unknown> {
    checkPropertyNames(schema.propertyNames, path);
    const shape = objectShape(schema, path);
    const { properties, extra, patterns } = shape;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const value: Record<string, unknown> = {};
    const put = (name: string) => {
      value[name] = this.sample(shape.schemaOf(name), `${path}/${escapeKey(name)}`, depth + 1);
    };
    const deep = depth > MAX_DEPTH / 2;
    for (const name of Object.keys(properties)) {
      if (required.includes(name) || (!deep && this.random.chance(0.5))) put(name);
    }
    for (const name of required) {
      if (name in value) continue;
      if (extra === false && !patterns.some(({ regex }) => regex.test(name))) {
        throw new SampleProblem(
          path,
          `"${name}" is required but "additionalProperties" is false and it is not in "properties"`,
        );
      }
      put(name);
    }
    if (isObject(extra) && !deep && Object.keys(properties).length === 0) {
      // A record: a few keys of its own.
      for (let i = this.random.int(0, 2); i > 0; i--) put(`key${i}`);
    }
    const minProps = typeof schema.minProperties === "number" ? schema.minProperties : 0;
    const maxProps =
      typeof schema.maxProperties === "number" ? schema.maxProperties : Number.POSITIVE_INFINITY;
    if (shape.named.length > 0 && !deep) {
      // Names of the patterns' own, as many as "maxProperties" leaves room for.
      for (let i = this.random.int(0, 2); i > 0 && Object.keys(value).length < maxProps; i--) {
        const name = this.patternName(this.random.pick(shape.named), value, properties, path);
        if (name === undefined) break;
        put(name);
      }
    }
    const count = Object.keys(value).length;
    for (let i = 0; Object.keys(value).length < minProps; i++) {
      put(this.unusedName(shape, value, i, `"minProperties" ${minProps} cannot be reached`, path));
    }
    if (count > maxProps)
      throw new SampleProblem(path, `the required properties exceed "maxProperties" ${maxProps}`);
    return value;
  }

  /** A name `value` lacks, for `minProperties`: an unused property's, a pattern's, or `key<i>`. */
  private unusedName(
    shape: ObjectShape,
    value: Record<string, unknown>,
    i: number,
    problem: string,
    path: string,
  ): string {
    const unused = Object.keys(shape.properties).find((name) => !(name in value));
    if (unused !== undefined) return unused;
    if (shape.named.length > 0) {
      const pattern = this.random.pick(shape.named);
      const name = this.patternName(pattern, value, shape.properties, path);
      if (name !== undefined) return name;
      throw new SampleProblem(
        path,
        `${problem}: no new name for "patternProperties" ${pattern.source}`,
      );
    }
    if (shape.extra !== false) return `key${i}`;
    throw new SampleProblem(path, problem);
  }

  /**
   * A new property name matching a `patternProperties` pattern (the cheap subset of
   * `regexSample`), or `undefined` when a few tries find none (`^id$` has one name).
   */
  private patternName(
    pattern: Pattern,
    value: Record<string, unknown>,
    properties: Schema,
    path: string,
  ): string | undefined {
    for (let attempt = 0; attempt <= 20; attempt++) {
      let name: string;
      try {
        name = regexSample(pattern.source, this.random);
      } catch (error) {
        if (!(error instanceof UnsupportedPattern)) throw error;
        throw new SampleProblem(
          path,
          `"patternProperties" ${pattern.source} is beyond the cheap subset (${error.message})`,
        );
      }
      if (pattern.regex.test(name) && !(name in value) && !Object.hasOwn(properties, name)) {
        return name;
      }
    }
    return undefined;
  }
}

/** One `patternProperties` entry: the pattern, compiled, and the schema of the values it names. */
interface Pattern {
  source: string;
  regex: RegExp;
  schema: unknown;
}

/** What an object's keys may be and the schema each key's value must match. */
interface ObjectShape {
  properties: Schema;
  /** `additionalProperties`: the schema of the keys neither listed nor matching a pattern. */
  extra: unknown;
  patterns: Pattern[];
  /** The patterns that allow a key at all (not `false`): names may be written from them. */
  named: Pattern[];
  /** What a value must match: its property's schema and each matching pattern's, or the rest's. */
  schemaOf(name: string): unknown;
}

/** The `ObjectShape` of an object schema. */
function objectShape(schema: Schema, path: string): ObjectShape {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const extra = schema.additionalProperties;
  const patterns = patternsOf(schema.patternProperties, path);
  const schemaOf = (name: string): unknown => {
    const matching = patterns.filter(({ regex }) => regex.test(name)).map((p) => p.schema);
    const listed = Object.hasOwn(properties, name);
    if (matching.length === 0) return listed ? properties[name] : isObject(extra) ? extra : {};
    return allOf(listed ? [properties[name], ...matching] : matching);
  };
  const named = patterns.filter((pattern) => pattern.schema !== false);
  return { properties, extra, patterns, named, schemaOf };
}

/** The entries of `patternProperties`, each pattern compiled as the validator does (the u flag). */
function patternsOf(given: unknown, path: string): Pattern[] {
  if (given === undefined) return [];
  if (!isObject(given)) throw new SampleProblem(path, '"patternProperties" is not an object');
  return Object.entries(given).map(([source, schema]) => {
    try {
      return { source, regex: new RegExp(source, "u"), schema };
    } catch (error) {
      throw new SampleProblem(
        path,
        `"patternProperties" ${source} is not a regular expression: ${(error as Error).message}`,
      );
    }
  });
}

/** `propertyNames` that plain string names meet: `true` or `{ type: "string" }`; others refused. */
function checkPropertyNames(names: unknown, path: string): void {
  if (names === undefined || names === true) return;
  const plain =
    isObject(names) && Object.keys(names).every((k) => k === "type") && names.type === "string";
  if (!plain)
    throw new SampleProblem(path, '"propertyNames" beyond { type: "string" } is not supported');
}

/** Schemas that must all hold, as one: `true` drops out, a `false` makes the whole false. */
function allOf(parts: unknown[]): unknown {
  const kept = parts.filter((part) => part !== true);
  if (kept.includes(false)) return false;
  return kept.length === 1 ? kept[0] : { allOf: kept };
}

/** The types a schema without "type" implies from its keywords (all of them when none do). */
function inferredTypes(schema: Schema): string[] {
  if (
    ["properties", "required", "additionalProperties", "patternProperties"].some((k) => k in schema)
  )
    return ["object"];
  if ("items" in schema || "prefixItems" in schema || "minItems" in schema) return ["array"];
  if (STRING_ASSERTIONS.some((keyword) => keyword in schema)) return ["string"];
  if (NUMBER_ASSERTIONS.some((keyword) => keyword in schema)) return ["number"];
  return ["string", "number", "boolean"];
}

/** Two schemas that must both hold, as one: `properties` and `required` joined, else the second's keywords. */
function merge(a: Schema, b: Schema, path: string): Schema {
  const merged: Schema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in merged) || ANNOTATIONS.has(key)) merged[key] = value;
    else if (key === "properties" && isObject(value) && isObject(merged.properties)) {
      const properties: Schema = { ...merged.properties };
      for (const [name, schema] of Object.entries(value)) {
        properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema;
      }
      merged.properties = properties;
    } else if (key === "required" && Array.isArray(value) && Array.isArray(merged.required)) {
      merged.required = [...new Set([...merged.required, ...value])];
    } else if (JSON.stringify(merged[key]) !== JSON.stringify(value)) {
      throw new SampleProblem(
        path,
        `"${key}" is given twice (by "$ref"/"allOf"/"anyOf"/"oneOf") with different values`,
      );
    }
  }
  return merged;
}

function escapeKey(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
