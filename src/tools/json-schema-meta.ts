import { dereference, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import type { SchemaIssue } from "../types/validation-result.js";
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

const TYPE_NAMES = ["array", "boolean", "integer", "null", "number", "object", "string"];
const schema = { $ref: "#/$defs/schema" };
const schemaArray = { type: "array", minItems: 1, items: schema };
const schemaMap = { type: "object", additionalProperties: schema };
const count = { type: "integer", minimum: 0 };
const number = { type: "number" };
const string = { type: "string" };
const strings = { type: "array", items: string };

/**
 * The shape each keyword's value must have for the validator to use it: a trimmed meta-schema
 * for drafts 4 to 2020-12 (the official ones need `$dynamicRef` and the network). Only draft 4
 * differs: its `exclusiveMinimum`/`exclusiveMaximum` are booleans.
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
          items: { type: ["object", "boolean", "array"], $ref: "#/$defs/keywords", items: schema },
          prefixItems: { type: "array", items: schema },
          additionalItems: schema,
          unevaluatedItems: schema,
          contains: schema,
          properties: schemaMap,
          patternProperties: { ...schemaMap, propertyNames: { format: "regex" } },
          additionalProperties: schema,
          unevaluatedProperties: schema,
          propertyNames: schema,
          dependentRequired: { type: "object", additionalProperties: strings },
          dependentSchemas: schemaMap,
          dependencies: {
            type: "object",
            additionalProperties: {
              type: ["object", "boolean", "array"],
              $ref: "#/$defs/keywords",
              items: string,
            },
          },
          allOf: schemaArray,
          anyOf: schemaArray,
          oneOf: schemaArray,
          not: schema,
          if: schema,
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
          then: schema,
          else: schema,
          $defs: schemaMap,
          definitions: schemaMap,
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
