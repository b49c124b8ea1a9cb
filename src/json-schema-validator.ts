import type { SchemaIssue, ValidationResult } from "./validation-result.js";

type Schema = Record<string, unknown>;
type Path = PropertyKey[];

/**
 * Checks a value against the common subset of JSON Schema that tool inputs use. Keywords it
 * does not know are ignored, so a schema it cannot fully judge never rejects valid args.
 */
export function validateJsonSchema(schema: Schema, value: unknown): ValidationResult<unknown> {
  const issues = validateAt(schema, value);
  return issues.length === 0 ? { value } : { issues };
}

function check(schema: unknown, value: unknown, path: Path, issues: SchemaIssue[]): void {
  if (schema === false) {
    issues.push({ message: "no value is allowed here", path });
    return;
  }
  if (typeof schema !== "object" || schema === null) return;
  const s = schema as Schema;
  const fail = (message: string) => {
    issues.push({ message, path });
  };
  const mismatch = firstMismatch(s, value);
  if (mismatch) {
    fail(mismatch);
    return;
  }
  checkCombinators(s, value, path, issues);
  if (typeof value === "string") checkString(s, value, fail);
  else if (typeof value === "number") checkNumber(s, value, fail);
  else if (Array.isArray(value)) checkArray(s, value, path, issues);
  else if (typeof value === "object" && value !== null) {
    checkObject(s, value as Record<string, unknown>, path, issues);
  }
}

/** The type, const or enum mismatch, which makes every other check meaningless. */
function firstMismatch(s: Schema, value: unknown): string | undefined {
  if (s.type !== undefined && !matchesType(s.type, value)) {
    return `expected ${[s.type].flat().join(" or ")}, received ${typeName(value)}`;
  }
  if (s.const !== undefined && !deepEqual(s.const, value))
    return `expected ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.enum) && !s.enum.some((option) => deepEqual(option, value))) {
    return `expected one of ${s.enum.map((option) => JSON.stringify(option)).join(", ")}`;
  }
  return undefined;
}

function checkCombinators(s: Schema, value: unknown, path: Path, issues: SchemaIssue[]): void {
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) check(sub, value, path, issues);
  const options = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (options && !options.some((sub) => validateAt(sub, value).length === 0)) {
    issues.push({ message: "matches none of the allowed shapes", path });
  }
}

function checkString(s: Schema, value: string, fail: (message: string) => void): void {
  const length = [...value].length;
  if (typeof s.minLength === "number" && length < s.minLength) {
    fail(`expected at least ${s.minLength} characters`);
  }
  if (typeof s.maxLength === "number" && length > s.maxLength) {
    fail(`expected at most ${s.maxLength} characters`);
  }
  if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) {
    fail(`expected to match /${s.pattern}/`);
  }
}

function checkNumber(s: Schema, value: number, fail: (message: string) => void): void {
  if (typeof s.minimum === "number" && value < s.minimum) fail(`expected >= ${s.minimum}`);
  if (typeof s.maximum === "number" && value > s.maximum) fail(`expected <= ${s.maximum}`);
  if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) {
    fail(`expected > ${s.exclusiveMinimum}`);
  }
  if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum) {
    fail(`expected < ${s.exclusiveMaximum}`);
  }
}

function checkArray(s: Schema, value: unknown[], path: Path, issues: SchemaIssue[]): void {
  if (typeof s.minItems === "number" && value.length < s.minItems) {
    issues.push({ message: `expected at least ${s.minItems} items`, path });
  }
  if (typeof s.maxItems === "number" && value.length > s.maxItems) {
    issues.push({ message: `expected at most ${s.maxItems} items`, path });
  }
  if (s.items !== undefined && !Array.isArray(s.items)) {
    value.forEach((item, index) => {
      check(s.items, item, [...path, index], issues);
    });
  }
}

function checkObject(
  s: Schema,
  value: Record<string, unknown>,
  path: Path,
  issues: SchemaIssue[],
): void {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  for (const key of Array.isArray(s.required) ? (s.required as string[]) : []) {
    if (!Object.hasOwn(value, key)) issues.push({ message: "required", path: [...path, key] });
  }
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) check(properties[key], item, [...path, key], issues);
    else if (s.additionalProperties === false) {
      issues.push({ message: "unknown property", path: [...path, key] });
    } else if (typeof s.additionalProperties === "object") {
      check(s.additionalProperties, item, [...path, key], issues);
    }
  }
}

function validateAt(schema: unknown, value: unknown): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  check(schema, value, [], issues);
  return issues;
}

function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type)) return type.some((each) => matchesType(each, value));
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
    case "string":
    case "boolean":
      return typeof value === type;
    default:
      return true;
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
