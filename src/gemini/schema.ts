type Schema = Record<string, unknown>;

/** Keywords of Gemini's schema dialect (a subset of OpenAPI 3.0) that pass through unchanged. */
const KEPT = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "default",
  "example",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "minProperties",
  "maxProperties",
  "required",
  "propertyOrdering",
]);

/** The `format` values Gemini accepts, per type; other formats are dropped. */
const FORMATS: Record<string, string[]> = {
  string: ["enum", "date-time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isNullSchema = (value: unknown): boolean => isSchema(value) && value.type === "null";

/** Resolves a local `$ref` (`#/$defs/X`, `#/definitions/X`, any `#/…` pointer) against the root. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = isSchema(node) ? node[key] : undefined;
  }
  return isSchema(node) ? node : undefined;
}

/** Merges `allOf` members into one schema (properties and required lists are combined). */
function mergeAllOf(members: Schema[]): Schema {
  const merged: Schema = {};
  for (const member of members) {
    for (const [key, value] of Object.entries(member)) {
      if (key === "properties" && isSchema(value)) {
        merged.properties = { ...(merged.properties as Schema | undefined), ...value };
      } else if (key === "required" && Array.isArray(value)) {
        merged.required = [...new Set([...((merged.required as string[]) ?? []), ...value])];
      } else merged[key] = value;
    }
  }
  return merged;
}

function convert(node: unknown, root: Schema, refs: readonly string[]): Schema {
  if (!isSchema(node)) return {};
  let schema = node;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const target = refs.includes(ref) ? undefined : resolveRef(root, ref);
    // A recursive or unresolvable reference cannot be written inline: any object will do.
    if (!target)
      return {
        type: "object",
        ...(typeof schema.description === "string" && { description: schema.description }),
      };
    const { $ref: _, ...siblings } = schema;
    return convert({ ...target, ...siblings }, root, [...refs, ref]);
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    const members = allOf.filter(isSchema).map((member) => convert(member, root, refs));
    schema = mergeAllOf([...members, rest]);
  }

  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) if (KEPT.has(key)) out[key] = value;

  // Types: ["string", "null"] → string + nullable; several types → anyOf.
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length < schema.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
    }
  }
  if ("const" in schema) out.enum = [schema.const];
  if (Array.isArray(out.enum)) {
    const values = out.enum.filter((value) => value !== null);
    if (values.length < out.enum.length) out.nullable = true;
    // Gemini takes string enums only; other values are described instead.
    if (values.every((value) => typeof value === "string")) {
      out.enum = values;
      out.type ??= "string";
    } else {
      delete out.enum;
      const list = values.map((value) => JSON.stringify(value)).join(", ");
      out.description = [out.description, `One of: ${list}.`].filter(Boolean).join(" ");
    }
  }
  if (typeof out.format === "string" && !FORMATS[String(out.type)]?.includes(out.format)) {
    delete out.format;
  }
  if (typeof schema.exclusiveMinimum === "number") out.minimum = schema.exclusiveMinimum;
  if (typeof schema.exclusiveMaximum === "number") out.maximum = schema.exclusiveMaximum;
  if (out.example === undefined && Array.isArray(schema.examples) && schema.examples.length > 0) {
    out.example = schema.examples[0];
  }

  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(alternatives)) {
    const options = alternatives.filter((option) => !isNullSchema(option));
    if (options.length < alternatives.length) out.nullable = true;
    const converted = options.map((option) => convert(option, root, refs));
    // One alternative left: it is the schema (the outer keywords, e.g. description, win).
    if (converted.length === 1) Object.assign(out, { ...converted[0], ...out });
    else if (converted.length > 1) out.anyOf = converted;
  }

  if (isSchema(schema.properties)) {
    const properties: Schema = {};
    for (const [name, value] of Object.entries(schema.properties)) {
      properties[name] = convert(value, root, refs);
    }
    out.properties = properties;
    out.type ??= "object";
  }
  if (Array.isArray(out.required)) {
    const names = isSchema(out.properties) ? Object.keys(out.properties) : [];
    out.required = out.required.filter((name) => names.includes(name as string));
    if ((out.required as string[]).length === 0) delete out.required;
  }
  if (Array.isArray(schema.items)) {
    out.items =
      schema.items.length === 1
        ? convert(schema.items[0], root, refs)
        : { anyOf: schema.items.map((item) => convert(item, root, refs)) };
  } else if (schema.items !== undefined) out.items = convert(schema.items, root, refs);
  else if (Array.isArray(schema.prefixItems)) {
    out.items = { anyOf: schema.prefixItems.map((item) => convert(item, root, refs)) };
  }
  return out;
}

/**
 * Converts a tool's JSON Schema to Gemini's dialect (a subset of OpenAPI 3.0): local `$ref`s
 * are inlined (recursive ones become a plain object) and `allOf` merged; `$schema`, `$id`,
 * `$defs`, `additionalProperties`, `not`, `if`/`then`/`else`, `patternProperties`,
 * `uniqueItems`, `multipleOf` and other unsupported keywords are dropped; `["T", "null"]`
 * types and null alternatives become `nullable`, `oneOf` becomes `anyOf`, `const` a one-value
 * enum, non-string enums a description, `exclusiveMinimum`/`Maximum` the inclusive bound,
 * `examples[0]` the `example`; formats Gemini does not know are dropped.
 */
export function toGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return convert(schema, schema, []);
}
