import {
  dereference,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
  validate,
} from "@cfworker/json-schema";
import type { ValidationResult } from "../types/validation-result.js";
import { SUBSCHEMA_MAP } from "../util/json-schema-keywords.js";
import { draftOf, metaIssues } from "./json-schema-meta.js";
import { keywordTypos } from "./json-schema-typos.js";
import {
  decodePointerSegment,
  formatIssues,
  formatPath,
  jsonSchemaIssues,
} from "./schema-issues.js";

type Lookup = ReturnType<typeof dereference>;

/**
 * Compiles a raw JSON Schema once into a validator for args: every keyword of its draft (from
 * `$schema`, 2020-12 when absent) is checked by @cfworker/json-schema, and every error is
 * reported. A schema the validator could not use throws a `TypeError` here, not on a call.
 */
export function compileJsonSchema(
  schema: Record<string, unknown>,
): (value: unknown) => ValidationResult<unknown> {
  const draft = draftOf(schema);
  const problems = [...metaIssues(schema, draft), ...keywordTypos(schema)];
  if (problems.length > 0) {
    throw new TypeError(
      `jsonSchema(): the schema is not valid JSON Schema (draft ${draft}): ${formatIssues(problems)}`,
    );
  }
  // cfworker marks the schema it resolves (hidden __absolute_uri__ fields): give it its own copy.
  const own = structuredClone(schema) as Schema;
  const lookup = resolveReferences(own);
  const keywordValue = (unit: OutputUnit) => keywordValueAt(own, lookup, unit);
  return (value) => check(value, own, draft, lookup, keywordValue);
}

function check(
  value: unknown,
  schema: Schema,
  draft: SchemaDraft,
  lookup: Lookup,
  keywordValue: (unit: OutputUnit) => unknown,
): ValidationResult<unknown> {
  let units: OutputUnit[];
  try {
    units = validate(value, schema, draft, lookup, false).errors;
  } catch (error) {
    // A value JSON cannot hold (undefined, a lone surrogate in a key): an issue, never a crash.
    return { issues: [{ message: `cannot be checked: ${(error as Error).message}` }] };
  }
  return units.length === 0 ? { value } : { issues: jsonSchemaIssues(units, value, keywordValue) };
}

/**
 * Indexes every subschema by URI and checks that each `$ref` finds its target now; cfworker
 * would only find out on the first call that reaches it. Nothing is fetched: a remote `$ref`
 * does not resolve.
 */
function resolveReferences(schema: Schema): Lookup {
  let lookup: Lookup;
  try {
    lookup = dereference(schema);
  } catch (error) {
    throw new TypeError(`jsonSchema(): ${(error as Error).message}`, { cause: error });
  }
  for (const node of new Set(Object.values(lookup))) {
    if (typeof node === "object") checkReferencesOf(node, lookup);
  }
  return lookup;
}

function checkReferencesOf(node: Schema, lookup: Lookup): void {
  const where = locationOf(node);
  if (node.$dynamicRef !== undefined) {
    throw new TypeError(
      `jsonSchema(): ${where}$dynamicRef is not supported by the validator; use $ref to a schema under $defs`,
    );
  }
  const targets = { $ref: node.__absolute_ref__, $recursiveRef: node.__absolute_recursive_ref__ };
  for (const [keyword, target] of Object.entries(targets)) {
    if (target === undefined || lookup[target] !== undefined) continue;
    throw new TypeError(
      `jsonSchema(): ${where}${keyword} ${JSON.stringify(node[keyword])} cannot be resolved; ` +
        "put the schema it names under $defs in this schema (nothing is fetched)",
    );
  }
}

/** "properties.a: " for the subschema at "#/properties/a" ("" for the root). */
function locationOf(node: Schema): string {
  const uri = String(node.__absolute_uri__ ?? "");
  const pointer = uri.includes("#") ? uri.slice(uri.indexOf("#") + 1) : "";
  const path = formatPath(pointer.split("/").slice(1).map(decodePointerSegment));
  return path ? `${path}: ` : "";
}

/** Keywords whose value is keyed by names (not keywords): subschema maps, draft 4-7 `dependencies`. */
const NAME_MAPS: ReadonlySet<string> = new Set(SUBSCHEMA_MAP);

/**
 * The value of the keyword a unit reports, found by following its `keywordLocation`
 * ("#/properties/a/$ref/pattern") through the schema, jumping at each `$ref`.
 */
function keywordValueAt(root: Schema, lookup: Lookup, unit: OutputUnit): unknown {
  let node: unknown = root;
  let isName = false;
  for (const segment of unit.keywordLocation.split("/").slice(1).map(decodePointerSegment)) {
    if (typeof node !== "object" || node === null) return undefined;
    const current = node as Schema;
    if (!isName && segment === "$recursiveRef") return undefined;
    node =
      !isName && segment === "$ref" ? lookup[current.__absolute_ref__ ?? ""] : current[segment];
    isName = !isName && NAME_MAPS.has(segment);
  }
  return node;
}
