/**
 * The keywords of JSON Schema (drafts 4 to 2020-12), each named once and grouped by what it
 * means: applicators (keywords holding subschemas, by what they apply to and how they hold
 * them), core keywords, assertions per type, annotations. Every part of tollgate that walks or
 * reads a schema (the typo check, the meta-schema, issue wording, the samplers) derives its
 * lists from here, so they cannot disagree about a keyword. Plain data: importable from
 * everywhere, adapters and `tollgate/testing` included.
 */

/** How an applicator holds its subschemas: one, a list of them, or a map from names to them. */
export type SubschemaForm = "one" | "list" | "map";

/**
 * What an applicator's subschemas check: the value itself ("in place"), each item, some item
 * (`contains`), each property value, the property names, or nothing (definitions, reached by
 * `$ref` only).
 */
export type AppliesTo = "value" | "each item" | "some item" | "each property" | "names" | "none";

interface Applicator {
  readonly holds: readonly SubschemaForm[];
  readonly to: AppliesTo;
}

/**
 * Every applicator, in the order the meta-schema checks them: items, properties, in place,
 * definitions. `items` holds one schema (2020-12) or a list (drafts 4 to 2019-09 tuples);
 * draft 4-7 `dependencies` maps a name to a subschema or to a list of names.
 */
export const APPLICATORS: Readonly<Record<string, Applicator>> = {
  items: { holds: ["one", "list"], to: "each item" },
  prefixItems: { holds: ["list"], to: "each item" },
  additionalItems: { holds: ["one"], to: "each item" },
  unevaluatedItems: { holds: ["one"], to: "each item" },
  contains: { holds: ["one"], to: "some item" },
  properties: { holds: ["map"], to: "each property" },
  patternProperties: { holds: ["map"], to: "each property" },
  additionalProperties: { holds: ["one"], to: "each property" },
  unevaluatedProperties: { holds: ["one"], to: "each property" },
  propertyNames: { holds: ["one"], to: "names" },
  dependentSchemas: { holds: ["map"], to: "value" },
  dependencies: { holds: ["map"], to: "value" },
  allOf: { holds: ["list"], to: "value" },
  anyOf: { holds: ["list"], to: "value" },
  oneOf: { holds: ["list"], to: "value" },
  not: { holds: ["one"], to: "value" },
  if: { holds: ["one"], to: "value" },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
  then: { holds: ["one"], to: "value" },
  else: { holds: ["one"], to: "value" },
  $defs: { holds: ["map"], to: "none" },
  definitions: { holds: ["map"], to: "none" },
};

/** The applicators matching `test`, in `APPLICATORS` order. */
function applicatorsWhere(test: (applicator: Applicator) => boolean): readonly string[] {
  return Object.keys(APPLICATORS).filter((keyword) => test(APPLICATORS[keyword]!));
}

/** Applicators whose value is one subschema (`not`, `items`, `additionalProperties`, ...). */
export const ONE_SUBSCHEMA = applicatorsWhere((a) => a.holds.includes("one"));
/** Applicators whose value is a list of subschemas (`allOf`, `prefixItems`, draft-7 `items`). */
export const SUBSCHEMA_LIST = applicatorsWhere((a) => a.holds.includes("list"));
/**
 * Applicators whose value maps names (not keywords) to subschemas (`properties`, `$defs`, ...):
 * the key after one of them in a schema path is a name, whatever it spells.
 */
export const SUBSCHEMA_MAP = applicatorsWhere((a) => a.holds.includes("map"));

/** Applicators whose subschemas check one of the places named (`"each item"`, `"value"`, ...). */
export function applicatorsTo(...places: AppliesTo[]): readonly string[] {
  return applicatorsWhere((a) => places.includes(a.to));
}

/**
 * Applicators of the properties no other keyword names (`additionalProperties`,
 * `unevaluatedProperties`): those of each property value that hold a single schema.
 */
export const UNLISTED_PROPERTY_APPLICATORS = applicatorsTo("each property").filter((keyword) =>
  ONE_SUBSCHEMA.includes(keyword),
);

/** Core keywords that apply another schema by reference. */
export const REFERENCES = ["$ref", "$dynamicRef", "$recursiveRef"] as const;

/** Core keywords: the dialect, identifiers, anchors, references and comments. */
export const CORE_KEYWORDS = [
  "$schema",
  "$id",
  "id", // draft 4's $id
  "$ref",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "$comment",
] as const;

/** Assertions of every type. */
export const ANY_TYPE_ASSERTIONS = ["type", "enum", "const"] as const;
/** Assertions of numbers and integers. */
export const NUMBER_ASSERTIONS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
] as const;
/** Assertions of strings (`format` is asserted by the validator, not only an annotation). */
export const STRING_ASSERTIONS = ["minLength", "maxLength", "pattern", "format"] as const;
/** Assertions of arrays. */
export const ARRAY_ASSERTIONS = [
  "minItems",
  "maxItems",
  "uniqueItems",
  "minContains",
  "maxContains",
] as const;
/** Assertions of objects (draft 4-7 `dependencies` is an applicator too). */
export const OBJECT_ASSERTIONS = [
  "minProperties",
  "maxProperties",
  "required",
  "dependentRequired",
  "dependencies",
] as const;

/** The meta-data and content annotations: they describe a value, never constrain it. */
export const ANNOTATIONS = [
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
] as const;
/** Annotations of OpenAPI and of model APIs, found in real tool schemas. */
export const VENDOR_ANNOTATIONS = [
  "example",
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
  "propertyOrdering",
  "strict",
] as const;

/** The seven type names `type` may hold. */
export const TYPE_NAMES = [
  "array",
  "boolean",
  "integer",
  "null",
  "number",
  "object",
  "string",
] as const;

/**
 * Every keyword of drafts 4 to 2020-12 and the vendor annotations: anything else in a schema is
 * unknown (the typo check looks for near misses of these, first listed first).
 */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  ...ONE_SUBSCHEMA,
  ...SUBSCHEMA_LIST,
  ...SUBSCHEMA_MAP,
  ...CORE_KEYWORDS,
  ...ANY_TYPE_ASSERTIONS,
  ...NUMBER_ASSERTIONS,
  ...STRING_ASSERTIONS,
  ...ARRAY_ASSERTIONS,
  ...OBJECT_ASSERTIONS,
  ...ANNOTATIONS,
  ...VENDOR_ANNOTATIONS,
]);

/**
 * Keywords that never constrain a value: the core ones that are not references, definitions,
 * and every annotation. A generator of values reads past them (`nullable` too, which only
 * widens a type).
 */
export const NON_CONSTRAINING: ReadonlySet<string> = new Set([
  ...CORE_KEYWORDS.filter((keyword) => !(REFERENCES as readonly string[]).includes(keyword)),
  ...applicatorsTo("none"),
  ...ANNOTATIONS,
  ...VENDOR_ANNOTATIONS,
]);
