import type { OutputUnit } from "@cfworker/json-schema";
import type { SchemaIssue } from "../types/validation-result.js";
import {
  applicatorsTo,
  REFERENCES,
  UNLISTED_PROPERTY_APPLICATORS,
} from "../util/json-schema-keywords.js";
import { jsonTypeName } from "../util/values.js";

/** "city: expected string; items[0]: required" — issues with the paths that failed. */
export function formatIssues(issues: ReadonlyArray<SchemaIssue>): string {
  return issues
    .map((issue) => {
      const path = formatPath(issue.path);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/** "items[0].name" for `["items", 0, "name"]`. */
export function formatPath(path: SchemaIssue["path"]): string {
  let text = "";
  for (const segment of path ?? []) {
    const key = typeof segment === "object" ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}

/** Reads the value a unit's keyword has in the schema (for `pattern`, whose message omits it). */
export type KeywordValue = (unit: OutputUnit) => unknown;

/**
 * Units that only say "a subschema failed"; the units after them say where and how. The
 * validator words them so for references, `allOf`, `if` and the applicators of each item and
 * each property value (`contains`, `propertyNames`, `anyOf`, `oneOf`, `not` say their own).
 */
const WRAPPERS: ReadonlySet<string> = new Set([
  ...REFERENCES,
  "allOf",
  "if",
  ...applicatorsTo("each property", "each item"),
]);

/** Keywords under which a `false` schema means "a key the schema does not list". */
const FOR_UNLISTED_KEYS: ReadonlySet<string> = new Set(UNLISTED_PROPERTY_APPLICATORS);

/**
 * Turns @cfworker/json-schema's output units into Standard Schema issues with paths, worded
 * for the model that has to fix its args ("items[0].name: expected string, received number").
 */
export function jsonSchemaIssues(
  units: readonly OutputUnit[],
  value: unknown,
  keywordValue: KeywordValue,
): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  units.forEach((unit, index) => {
    if (WRAPPERS.has(unit.keyword)) return;
    const at = locate(unit.instanceLocation, value);
    issues.push(toIssue(unit, at, units[index - 1], keywordValue));
  });
  return issues;
}

interface Located {
  path: PropertyKey[];
  value: unknown;
}

/** The path (array indexes as numbers) and value at a JSON pointer such as "#/items/0/name". */
function locate(pointer: string, root: unknown): Located {
  const path: PropertyKey[] = [];
  let value = root;
  for (const segment of pointer.split("/").slice(1)) {
    const key = decodePointerSegment(segment);
    const step = Array.isArray(value) ? Number(key) : key;
    path.push(step);
    value =
      typeof value === "object" && value !== null
        ? (value as Record<PropertyKey, unknown>)[step]
        : undefined;
  }
  return { path, value };
}

/** One segment of cfworker's JSON pointers (escaped with `~0` `~1`, then URI-encoded) as the key it names. */
export function decodePointerSegment(segment: string): string {
  return decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~");
}

function toIssue(
  unit: OutputUnit,
  at: Located,
  previous: OutputUnit | undefined,
  keywordValue: KeywordValue,
): SchemaIssue {
  const missing = missingKey(unit);
  if (missing) return { path: [...at.path, missing.key], message: missing.message };
  return { path: at.path, message: describe(unit, at.value, previous, keywordValue) };
}

/** `required` and `dependentRequired` name a key that is absent: the issue's path ends there. */
function missingKey(unit: OutputUnit): { key: string; message: string } | undefined {
  if (unit.keyword === "required") {
    return { key: between(unit.error, 'required property "', '".'), message: "required" };
  }
  const dependent = /^Instance has "(.*)" but does not have "(.*)"\.$/s.exec(unit.error);
  if (dependent)
    return { key: dependent[2]!, message: `required when "${dependent[1]}" is present` };
  return undefined;
}

function describe(
  unit: OutputUnit,
  value: unknown,
  previous: OutputUnit | undefined,
  keywordValue: KeywordValue,
): string {
  const { error } = unit;
  const numbers = error.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi) ?? [];
  const [first, second] = numbers;
  const last = numbers.at(-1);
  switch (unit.keyword) {
    case "type":
      return `expected ${quotedIn(error.slice(error.indexOf("Expected"))).join(" or ")}, received ${jsonTypeName(value)}`;
    case "const":
      return `expected ${between(error, "Instance does not match ", ".")}`;
    case "enum":
      return `expected one of ${enumOptions(error)}`;
    case "false":
      return FOR_UNLISTED_KEYS.has(previous?.keyword ?? "")
        ? "unknown property"
        : "no value is allowed here";
    case "not":
      return "must not match the `not` schema";
    case "anyOf":
      return "matches none of the allowed shapes (`anyOf`)";
    case "oneOf":
      return `matches ${first ?? "none"} of the \`oneOf\` shapes; expected exactly one`;
    case "minLength":
      return `expected at least ${second} characters`;
    case "maxLength":
      return `expected at most ${second} characters`;
    case "minItems":
      return `expected at least ${second} items`;
    case "maxItems":
      return `expected at most ${second} items`;
    case "minProperties":
      return `expected at least ${first} properties`;
    case "maxProperties":
      return `expected at most ${first} properties`;
    case "minimum":
      return `expected ${error.includes("or equal") ? ">" : ">="} ${last}`;
    case "maximum":
      return `expected ${error.includes("or equal") ? "<" : "<="} ${last}`;
    case "exclusiveMinimum":
      return `expected > ${last}`;
    case "exclusiveMaximum":
      return `expected < ${last}`;
    case "multipleOf":
      return `expected a multiple of ${last}`;
    case "pattern":
      return `expected to match /${String(keywordValue(unit) ?? "the pattern")}/`;
    case "format":
      return formatMessage(quotedIn(error)[0], value);
    case "contains":
      return "expected an item that matches `contains`";
    case "uniqueItems":
      return `expected unique items ([${first}] and [${second}] are equal)`;
    case "dependentSchemas":
    case "dependencies":
      return `does not match the schema that applies when "${between(error, 'has "', '" but')}" is present`;
    case "propertyNames":
      return `property name "${between(error, 'Property name "', '" does not')}" is not allowed`;
    default:
      return sentence(error);
  }
}

function formatMessage(format: string | undefined, value: unknown): string {
  if (format !== "regex") return `expected format "${format}"`;
  // Under `propertyNames` the value checked is the key (already in the path), not this value.
  const shown = typeof value === "string" ? `: ${JSON.stringify(value)}` : "";
  return `not a valid regular expression (with the u flag)${shown}`;
}

function enumOptions(error: string): string {
  try {
    const options = JSON.parse(between(error, "any of ", ".")) as unknown[];
    return options.map((option) => JSON.stringify(option)).join(", ");
  } catch {
    return between(error, "any of ", ".");
  }
}

/** The text of `error` between `start` and the last `end`. */
function between(error: string, start: string, end: string): string {
  const from = error.indexOf(start) + start.length;
  return error.slice(from, error.lastIndexOf(end));
}

function quotedIn(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"/g)].map((match) => match[1]!);
}

/** "String is too long." → "string is too long" (cfworker's words, for keywords not worded here). */
function sentence(error: string): string {
  const text = error.endsWith(".") ? error.slice(0, -1) : error;
  return text.charAt(0).toLowerCase() + text.slice(1);
}
