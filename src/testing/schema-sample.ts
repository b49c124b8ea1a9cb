import { regexSample, UnsupportedPattern } from "./regex-sample.js";
import type { Random } from "./seeded-random.js";

/** A schema `sampleSchema` cannot write a value for: where (a JSON Pointer) and why. */
export class SampleProblem extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`at ${path || "/"}: ${problem}`);
  }
}

type Schema = Record<string, unknown>;

/** Keywords that only describe: never a constraint to satisfy. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "example",
  "deprecated",
  "readOnly",
  "writeOnly",
  "nullable",
  "contentEncoding",
  "contentMediaType",
  "discriminator",
  "$dynamicAnchor",
  "strict",
]);
/** Keywords the sampler satisfies. Anything else is refused, naming the keyword. */
const HANDLED = new Set([
  "type",
  "enum",
  "const",
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "format",
  "pattern",
]);
const MAX_DEPTH = 24;

/**
 * A value valid for the JSON Schema, chosen by `random`: required properties always, optional
 * ones about half the time (none deep in a recursive schema), one branch of `anyOf`/`oneOf`,
 * `$ref` into the schema's own `$defs`/`definitions`, numbers and strings within their bounds,
 * formats (email, uri/url, uuid, date, date-time, time, ipv4, ipv6, hostname, duration), and
 * `pattern` for a cheap subset of regular expressions. A keyword it cannot satisfy throws a
 * `SampleProblem` naming the path and the keyword; it never returns a value it knows is wrong.
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
        return this.number(schema, type, path);
      case "string":
        return this.string(schema, path);
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
    if (!["boolean", "integer", "number", "string", "array", "object"].includes(type)) {
      throw new SampleProblem(path, `unknown type "${type}"`);
    }
    return type;
  }

  private number(schema: Schema, type: string, path: string): number {
    let low = -1000;
    let high = 1000;
    let lowOpen = false;
    let highOpen = false;
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
    if (typeof minimum === "number") low = minimum;
    if (typeof maximum === "number") high = maximum;
    if (typeof exclusiveMinimum === "number" && exclusiveMinimum >= low) {
      [low, lowOpen] = [exclusiveMinimum, true];
    } else if (exclusiveMinimum === true) lowOpen = true;
    if (typeof exclusiveMaximum === "number" && exclusiveMaximum <= high) {
      [high, highOpen] = [exclusiveMaximum, true];
    } else if (exclusiveMaximum === true) highOpen = true;
    if (typeof minimum !== "number" && typeof exclusiveMinimum !== "number")
      low = Math.min(0, high - 100);
    if (typeof maximum !== "number" && typeof exclusiveMaximum !== "number")
      high = Math.max(100, low + 100);
    const step = typeof multipleOf === "number" && multipleOf > 0 ? multipleOf : undefined;
    if (step !== undefined || type === "integer" || this.random.chance(0.5)) {
      const unit = step ?? 1;
      const first =
        Math.ceil(low / unit) + (lowOpen && Math.ceil(low / unit) * unit === low ? 1 : 0);
      const last =
        Math.floor(high / unit) - (highOpen && Math.floor(high / unit) * unit === high ? 1 : 0);
      if (first <= last && Number.isSafeInteger(first) && Number.isSafeInteger(last)) {
        const k = this.random.int(
          Math.max(first, -1e9),
          Math.min(last, Math.max(first, -1e9) + 1e9),
        );
        return step === undefined ? k : Number((k * step).toPrecision(12));
      }
      if (step !== undefined || type === "integer") {
        throw new SampleProblem(
          path,
          `no ${step ? `multiple of ${step}` : "integer"} lies within the bounds`,
        );
      }
    }
    if (low > high || (low === high && (lowOpen || highOpen))) {
      throw new SampleProblem(path, "no number lies within the bounds");
    }
    const value = Math.round((low + this.random.next() * (high - low)) * 1000) / 1000;
    const fits = (v: number) => (lowOpen ? v > low : v >= low) && (highOpen ? v < high : v <= high);
    if (fits(value)) return value;
    const middle = low + (high - low) / 2;
    if (fits(middle)) return middle;
    throw new SampleProblem(path, "no number lies within the bounds");
  }

  private string(schema: Schema, path: string): string {
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
    if (min > max) throw new SampleProblem(path, '"minLength" is above "maxLength"');
    const pattern = typeof schema.pattern === "string" ? schema.pattern : undefined;
    let value: string;
    if (schema.format !== undefined) value = this.formatted(schema.format, path);
    else if (pattern !== undefined) {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, "u");
      } catch (error) {
        throw new SampleProblem(
          path,
          `"pattern" is not a regular expression: ${(error as Error).message}`,
        );
      }
      for (let attempt = 0; ; attempt++) {
        try {
          value = regexSample(pattern, this.random);
        } catch (error) {
          if (!(error instanceof UnsupportedPattern)) throw error;
          throw new SampleProblem(
            path,
            `"pattern" ${pattern} is beyond the cheap subset (${error.message})`,
          );
        }
        const length = [...value].length;
        if (regex.test(value) && length >= min && length <= max) return value;
        if (attempt === 20) {
          throw new SampleProblem(
            path,
            `no string found for "pattern" ${pattern} within the length bounds`,
          );
        }
      }
    } else {
      const length = this.random.int(min, Math.min(max, min + 8));
      value = Array.from({ length }, () =>
        this.random.pick([..."abcdefghijklmnopqrstuvwxyz"]),
      ).join("");
    }
    const length = [...value].length;
    if (length < min || length > max) {
      throw new SampleProblem(
        path,
        `the "${schema.format}" value ${JSON.stringify(value)} does not fit "minLength"/"maxLength"`,
      );
    }
    if (pattern !== undefined && !new RegExp(pattern, "u").test(value)) {
      throw new SampleProblem(
        path,
        `the "${schema.format}" value ${JSON.stringify(value)} does not match "pattern" ${pattern}`,
      );
    }
    return value;
  }

  private formatted(format: unknown, path: string): string {
    const r = this.random;
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    const word = () =>
      r.pick(["alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango"]);
    const hex = (n: number) =>
      Array.from({ length: n }, () => r.pick([..."0123456789abcdef"])).join("");
    const date = () => `${r.int(2000, 2030)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
    const time = () => `${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}`;
    switch (format) {
      case "email":
        return `${word()}${r.int(1, 99)}@example.com`;
      case "uri":
      case "url":
      case "iri":
      case "uri-reference":
      case "iri-reference":
        return `https://example.com/${word()}/${r.int(1, 999)}`;
      case "uuid":
        return `${hex(8)}-${hex(4)}-4${hex(3)}-${r.pick([..."89ab"])}${hex(3)}-${hex(12)}`;
      case "date":
        return date();
      case "date-time":
        return `${date()}T${time()}Z`;
      case "time":
        return `${time()}Z`;
      case "ipv4":
        return `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`;
      case "ipv6":
        return `2001:db8::${hex(4).replace(/^0+(?=.)/, "")}`;
      case "hostname":
        return `${word()}.example.com`;
      case "duration":
        return `P${r.int(1, 30)}D`;
      default:
        throw new SampleProblem(path, `the "format" ${JSON.stringify(format)} is not supported`);
    }
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
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const extra = schema.additionalProperties;
    if (schema.propertyNames !== undefined) {
      const names = schema.propertyNames;
      const plain =
        names === true ||
        (isObject(names) &&
          Object.keys(names).every((k) => k === "type") &&
          names.type === "string");
      if (!plain)
        throw new SampleProblem(path, '"propertyNames" beyond { type: "string" } is not supported');
    }
    const value: Record<string, unknown> = {};
    const deep = depth > MAX_DEPTH / 2;
    for (const [name, property] of Object.entries(properties)) {
      if (required.includes(name) || (!deep && this.random.chance(0.5))) {
        value[name] = this.sample(property, `${path}/${escapeKey(name)}`, depth + 1);
      }
    }
    for (const name of required) {
      if (name in value) continue;
      if (extra === false) {
        throw new SampleProblem(
          path,
          `"${name}" is required but "additionalProperties" is false and it is not in "properties"`,
        );
      }
      value[name] = this.sample(
        isObject(extra) ? extra : {},
        `${path}/${escapeKey(name)}`,
        depth + 1,
      );
    }
    if (isObject(extra) && !deep && Object.keys(properties).length === 0) {
      // A record: a few keys of its own.
      for (let i = this.random.int(0, 2); i > 0; i--) {
        value[`key${i}`] = this.sample(extra, `${path}/key${i}`, depth + 1);
      }
    }
    const count = Object.keys(value).length;
    const minProps = typeof schema.minProperties === "number" ? schema.minProperties : 0;
    const maxProps =
      typeof schema.maxProperties === "number" ? schema.maxProperties : Number.POSITIVE_INFINITY;
    for (let i = 0; Object.keys(value).length < minProps; i++) {
      const unused = Object.keys(properties).find((name) => !(name in value));
      if (unused !== undefined) {
        value[unused] = this.sample(properties[unused], `${path}/${escapeKey(unused)}`, depth + 1);
      } else if (extra !== false) {
        value[`key${i}`] = this.sample(isObject(extra) ? extra : {}, `${path}/key${i}`, depth + 1);
      } else throw new SampleProblem(path, `"minProperties" ${minProps} cannot be reached`);
    }
    if (count > maxProps)
      throw new SampleProblem(path, `the required properties exceed "maxProperties" ${maxProps}`);
    return value;
  }
}

/** The types a schema without "type" implies from its keywords (all of them when none do). */
function inferredTypes(schema: Schema): string[] {
  if ("properties" in schema || "required" in schema || "additionalProperties" in schema)
    return ["object"];
  if ("items" in schema || "prefixItems" in schema || "minItems" in schema) return ["array"];
  if ("minLength" in schema || "maxLength" in schema || "pattern" in schema || "format" in schema)
    return ["string"];
  if ("minimum" in schema || "maximum" in schema || "multipleOf" in schema) return ["number"];
  if ("exclusiveMinimum" in schema || "exclusiveMaximum" in schema) return ["number"];
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
