import { dereference, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import type { SchemaIssue } from "../types/validation-result.js";
import {
  APPLICATORS,
  type AppliesTo,
  applicatorsTo,
  type SubschemaForm,
  TYPE_NAMES,
} from "../util/json-schema-keywords.js";
import { jsonSchemaIssues } from "./schema-issues.js";

const DIALECT =
  /^https?:\/\/json-schema\.org\/(?:(draft-0[467]|draft\/2019-09|draft\/2020-12)\/)?schema#?$/;

const DRAFTS: Readonly<Record<string, SchemaDraft>> = {
  "draft-04": "4",
  "draft-06": "7", // draft 7 only added if/then/else (and annotations) to draft 6
  "draft-07": "7",
  "draft/2019-09": "2019-09",
  "draft/2020-12": "2020-12",
  latest: "2020-12", // "http://json-schema.org/schema#", the unversioned URI
};

/** The draft a schema's `$schema` names; 2020-12 when it names none. Any other `$schema` is a `TypeError`. */
export function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const uri = schema.$schema;
  if (uri === undefined) return "2020-12";
  const match = typeof uri === "string" ? DIALECT.exec(uri) : null;
  const draft = match ? DRAFTS[match[1] ?? "latest"] : undefined;
  if (draft) return draft;
  throw new TypeError(
    `jsonSchema(): unknown $schema ${JSON.stringify(uri)}; name draft-04, -06, -07, 2019-09 or 2020-12 ` +
      '(e.g. "https://json-schema.org/draft/2020-12/schema"), or leave $schema out for 2020-12',
  );
}

const schema: Schema = { $ref: "#/$defs/schema" };
const schemaArray: Schema = { type: "array", minItems: 1, items: schema };
const schemaMap: Schema = { type: "object", additionalProperties: schema };
const count: Schema = { type: "integer", minimum: 0 };
const number: Schema = { type: "number" };
const string: Schema = { type: "string" };
const strings: Schema = { type: "array", items: string };

/** The value each form of applicator holds: one subschema, a non-empty list, a map of names. */
const FORM_SHAPES: Readonly<Record<SubschemaForm, Schema>> = {
  one: schema,
  list: schemaArray,
  map: schemaMap,
};

/**
 * Applicators whose value is not plainly their form's: `items` is one schema or a list,
 * `prefixItems` may be empty, `patternProperties` names are regular expressions, and draft 4-7
 * `dependencies` maps a name to a schema or to a list of names.
 */
const SHAPE_EXCEPTIONS: Readonly<Record<string, Schema>> = {
  items: { type: ["object", "boolean", "array"], $ref: "#/$defs/keywords", items: schema },
  prefixItems: { type: "array", items: schema },
  patternProperties: { ...schemaMap, propertyNames: { format: "regex" } },
  dependencies: {
    type: "object",
    additionalProperties: {
      type: ["object", "boolean", "array"],
      $ref: "#/$defs/keywords",
      items: string,
    },
  },
};

/** The shape of each applicator's value, for those applying to one of `places`, in order. */
function applicatorShapes(...places: AppliesTo[]): Record<string, Schema> {
  const shapes: Record<string, Schema> = {};
  for (const keyword of applicatorsTo(...places)) {
    const [form] = APPLICATORS[keyword]!.holds;
    shapes[keyword] = SHAPE_EXCEPTIONS[keyword] ?? FORM_SHAPES[form!];
  }
  return shapes;
}

/**
 * The shape each keyword's value must have for the validator to use it: a trimmed meta-schema
 * for drafts 4 to 2020-12 (the official ones need `$dynamicRef` and the network). Only draft 4
 * differs: its `exclusiveMinimum`/`exclusiveMaximum` are booleans. Applicators' shapes come
 * from how they hold their subschemas (`APPLICATORS`).
 */
function metaSchema(draft: SchemaDraft): Schema {
  const bound = draft === "4" ? { type: "boolean" } : number;
  return {
    $ref: "#/$defs/schema",
    $defs: {
      schema: { type: ["object", "boolean"], $ref: "#/$defs/keywords" },
      keywords: {
        properties: {
          $schema: string,
          $id: string,
          $ref: string,
          $anchor: string,
          $recursiveRef: { const: "#" },
          $recursiveAnchor: { type: "boolean" },
          type: {
            type: ["string", "array"],
            items: { enum: TYPE_NAMES },
            if: string,
            // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
            then: { enum: TYPE_NAMES },
          },
          enum: { type: "array" },
          multipleOf: { type: "number", exclusiveMinimum: 0 },
          minimum: number,
          maximum: number,
          exclusiveMinimum: bound,
          exclusiveMaximum: bound,
          minLength: count,
          maxLength: count,
          minItems: count,
          maxItems: count,
          minProperties: count,
          maxProperties: count,
          minContains: count,
          maxContains: count,
          pattern: { type: "string", format: "regex" },
          format: string,
          required: strings,
          uniqueItems: { type: "boolean" },
          ...applicatorShapes("each item", "some item", "each property", "names"),
          dependentRequired: { type: "object", additionalProperties: strings },
          ...applicatorShapes("value", "none"),
        },
      },
    },
  };
}

const compiled = new Map<string, { schema: Schema; lookup: ReturnType<typeof dereference> }>();

/**
 * What is wrong with a schema's keywords for the given draft (`{ "type": 12 }`, `required: "x"`,
 * a `pattern` that is not a regular expression, ...), checked by the validator itself, offline.
 */
export function metaIssues(value: Record<string, unknown>, draft: SchemaDraft): SchemaIssue[] {
  const key = draft === "4" ? "4" : "later";
  let meta = compiled.get(key);
  if (!meta) {
    const schema = metaSchema(draft);
    meta = { schema, lookup: dereference(schema) };
    compiled.set(key, meta);
  }
  try {
    const result = validate(value, meta.schema, "2019-09", meta.lookup, false);
    return jsonSchemaIssues(result.errors, value, () => undefined);
  } catch (error) {
    return [{ message: `cannot be checked: ${(error as Error).message}` }];
  }
}
