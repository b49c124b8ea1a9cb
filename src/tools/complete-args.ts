/**
 * Completing args with their schema's defaults, so that every judge of a call (hooks, policy,
 * `needsApproval`, a human, digests, events) sees the fields `execute` will get. The defaults
 * are read from the JSON Schema the model is shown (`default`, as zod, zod 3, raw JSON Schema
 * and MCP servers all write it): one mechanism for every kind of schema.
 */

type JsonObject = Record<string, unknown>;

/** Fills the defaults into one value; returns the value itself when nothing was missing. */
type Filler = (value: unknown) => unknown;

/**
 * Where a converter left the source of a default whose value is computed per parse (zod's
 * `.default(() => …)`): a function giving a fresh value, read instead of the schema's `default`
 * (which holds the value of the one call made when the schema was converted).
 */
export const DEFAULT_SOURCE: unique symbol = Symbol("tollgate.defaultSource");

/** A JSON Schema node, possibly carrying the source of its default. */
type SchemaNode = JsonObject & { [DEFAULT_SOURCE]?: () => unknown };

const completers = new WeakMap<object, Filler | null>();

/**
 * Completes a call's args (in the model's form, frozen) with the defaults of `schema`, the
 * tool's JSON Schema: a field the schema gives a `default` and the args leave out is added with
 * that default, at any depth the args reach (nested objects, array items, `$ref`, `allOf`, an
 * object-or-null). Returns the args themselves when the schema gives no default they lack, and
 * otherwise a new frozen value; the args are never changed in place.
 */
export function completeArgs(schema: JsonObject, args: unknown): unknown {
  let fill = completers.get(schema);
  if (fill === undefined) {
    fill = compileDefaults(schema) ?? null;
    completers.set(schema, fill);
  }
  return fill === null ? args : fill(args);
}

/**
 * Builds the filler of a schema once: `undefined` when no default is reachable from its root,
 * so a tool without defaults costs one map lookup per call.
 */
function compileDefaults(root: JsonObject): Filler | undefined {
  const built = new Map<object, Filler | undefined | typeof PENDING>();

  const resolve = (ref: unknown): JsonObject | undefined => {
    if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
    let node: unknown = root;
    for (const segment of ref.slice(1).split("/").slice(1)) {
      const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObject(node) ? node[decodeURIComponent(key)] : undefined;
    }
    return isObject(node) ? node : undefined;
  };

  const compile = (node: unknown): Filler | undefined => {
    if (!isObject(node)) return undefined;
    const seen = built.get(node);
    if (seen === PENDING)
      return (value) => (built.get(node) as Filler | undefined)?.(value) ?? value;
    if (built.has(node)) return seen as Filler | undefined;
    built.set(node, PENDING);
    const parts = [
      compile(resolve(node.$ref)),
      objectFiller(node, compile),
      arrayFiller(node, compile),
      ...(Array.isArray(node.allOf) ? node.allOf.map(compile) : []),
      nullableFiller(node, compile),
    ].filter((part): part is Filler => part !== undefined);
    const filler = chain(parts);
    built.set(node, filler);
    return filler;
  };

  return compile(root);
}

const PENDING = Symbol("pending");

/** Fills the missing properties that have a default, then each present property's own defaults. */
function objectFiller(
  node: JsonObject,
  compile: (node: unknown) => Filler | undefined,
): Filler | undefined {
  const properties = isObject(node.properties) ? node.properties : {};
  const fields: Array<{
    key: string;
    initial: (() => unknown) | undefined;
    fill: Filler | undefined;
  }> = [];
  for (const key of Object.keys(properties)) {
    if (key === "__proto__") continue; // the args parser drops such keys; never set one
    const property = properties[key] as SchemaNode;
    const fill = compile(property);
    const initial = isObject(property) ? defaultOf(property) : undefined;
    if (fill || initial) fields.push({ key, initial, fill });
  }
  const rest = compile(node.additionalProperties);
  if (fields.length === 0 && !rest) return undefined;
  return (value) => {
    if (!isObject(value) || Array.isArray(value)) return value;
    let copy: JsonObject | undefined;
    for (let i = 0; i < fields.length; i++) {
      const { key, initial, fill } = fields[i]!;
      let item: unknown;
      if (Object.hasOwn(value, key)) {
        const given = value[key];
        item = fill ? fill(given) : given;
        if (item === given) continue;
      } else if (initial) {
        item = fill ? fill(initial()) : initial();
      } else continue;
      copy ??= { ...value };
      copy[key] = item;
    }
    if (rest) {
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(properties, key)) continue;
        const given = value[key];
        const item = rest(given);
        if (item === given) continue;
        copy ??= { ...value };
        copy[key] = item;
      }
    }
    return copy ? Object.freeze(copy) : value;
  };
}

/** Fills each item's defaults: `items` for every item (2020-12), or a tuple's `prefixItems`. */
function arrayFiller(
  node: JsonObject,
  compile: (node: unknown) => Filler | undefined,
): Filler | undefined {
  const prefix = Array.isArray(node.prefixItems)
    ? node.prefixItems.map(compile)
    : Array.isArray(node.items)
      ? node.items.map(compile) // draft-07 tuples
      : [];
  const each = Array.isArray(node.items) ? undefined : compile(node.items);
  if (!each && !prefix.some(Boolean)) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return value;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const fill = i < prefix.length ? prefix[i] : each;
      const item: unknown = value[i];
      const filled = fill ? fill(item) : item;
      if (filled === item) continue;
      copy ??= [...value];
      copy[i] = filled;
    }
    return copy ? Object.freeze(copy) : value;
  };
}

/**
 * An object-or-null (`anyOf`/`oneOf` of one schema and `{ type: "null" }`, as zod writes
 * `.nullable()`): the schema's defaults fill a value that is not null. Other unions are left
 * alone: which branch a value meant is not for the completion to guess.
 */
function nullableFiller(
  node: JsonObject,
  compile: (node: unknown) => Filler | undefined,
): Filler | undefined {
  const branches = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
  if (!Array.isArray(branches)) return undefined;
  const others = branches.filter((branch) => !(isObject(branch) && branch.type === "null"));
  if (others.length !== 1 || branches.length !== 2) return undefined;
  const fill = compile(others[0]);
  return fill && ((value) => (value === null ? value : fill(value)));
}

/** The default of a property, as a function giving a fresh frozen value each call. */
function defaultOf(property: SchemaNode): (() => unknown) | undefined {
  if (!Object.hasOwn(property, "default")) return undefined;
  const source = property[DEFAULT_SOURCE];
  if (source) return () => freezeCopy(jsonCopy(source()));
  const value = freezeCopy(property.default);
  return () => value;
}

/** Runs fillers one after the other. */
function chain(parts: Filler[]): Filler | undefined {
  if (parts.length <= 1) return parts[0];
  return (value) => parts.reduce((current, fill) => fill(current), value);
}

/** A deep, frozen copy of JSON data (a default is shared by every call it fills). */
function freezeCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(freezeCopy));
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) {
    if (key !== "__proto__") copy[key] = freezeCopy((value as JsonObject)[key]);
  }
  return Object.freeze(copy);
}

/** A value as JSON data (a zod default computed per call is whatever its function returned). */
function jsonCopy(value: unknown): unknown {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null;
}
