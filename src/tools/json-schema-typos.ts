import type { SchemaIssue } from "../types/validation-result.js";
import { editDistance } from "../util/option-keys.js";

/** Keywords whose value is one subschema. */
const ONE = [
  "not",
  "if",
  "then",
  "else",
  "contains",
  "additionalProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
  "items",
];
/** Keywords whose value is a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** Every keyword of drafts 4 to 2020-12 and the annotations tools commonly carry. */
const KNOWN = new Set([
  ...ONE,
  ...LIST,
  ...MAP,
  "$schema",
  "$id",
  "id",
  "$ref",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "$comment",
  "type",
  "enum",
  "const",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "required",
  "dependentRequired",
  "dependencies",
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
  // Annotations of OpenAPI and of model APIs, found in real tool schemas.
  "example",
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
  "propertyOrdering",
  "strict",
]);

/**
 * Unknown keys that are near misses of a JSON Schema keyword (`requried`, `maxLenght`,
 * `additonalProperties`), anywhere in the schema. A validator ignores unknown keywords, as
 * the spec says, so such a typo silently relaxes what the gate checks: it is refused instead.
 * Names far from every keyword (vendor extensions like `x-order`) are left alone.
 */
export function keywordTypos(schema: unknown, path: PropertyKey[] = []): SchemaIssue[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const issues: SchemaIssue[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!KNOWN.has(key)) {
      const near = nearKeyword(key);
      if (near) {
        issues.push({
          message: `unknown keyword \`${key}\`; did you mean \`${near}\`?`,
          path: [...path, key],
        });
      }
      continue;
    }
    if (MAP.includes(key) && typeof value === "object" && value !== null) {
      for (const [name, sub] of Object.entries(value)) {
        issues.push(...keywordTypos(sub, [...path, key, name]));
      }
    } else if (LIST.includes(key) && Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        issues.push(...keywordTypos(value[index], [...path, key, index]));
      }
    } else if (ONE.includes(key)) issues.push(...keywordTypos(value, [...path, key]));
  }
  return issues;
}

function nearKeyword(key: string): string | undefined {
  if (key.length < 4 || key.startsWith("x-")) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  for (const keyword of KNOWN) {
    const distance = editDistance(key.toLowerCase(), keyword.toLowerCase());
    if (distance < bestDistance) {
      best = keyword;
      bestDistance = distance;
    }
  }
  // Two edits in a short word make another word; allow them only from 8 letters on.
  return bestDistance <= (key.length >= 8 ? 2 : 1) ? best : undefined;
}
