import type { JsonSchema } from "../types/schema.js";
import type { SchemaIssue, ValidationResult } from "../types/validation-result.js";
import { jsonTypeName } from "../util/values.js";

/**
 * A raw JSON Schema with the check that judges args against it: the model is shown `schema`,
 * `check` judges the args. What `jsonSchema()` returns, and the input of a tool the loop writes
 * itself (a handoff's, a sub-agent's default), whose check is written by hand: nothing is
 * compiled for those, so a loop whose tools are all zod never loads the JSON Schema validator
 * (@cfworker/json-schema).
 */
export function checkedJsonSchema<T, In = T>(
  schema: Record<string, unknown>,
  check: (value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>>,
): JsonSchema<T, In> {
  return {
    jsonSchema: schema,
    "~standard": {
      version: 1,
      vendor: "tollgate",
      validate: check,
      jsonSchema: { input: () => schema },
    },
  };
}

/**
 * Checks an object with exactly the given string fields, all required, and words each problem
 * as the JSON Schema validator does for `{ type: "object", properties: { [name]: { type:
 * "string" } }, required: [...names], additionalProperties: false }`.
 */
export function stringFields<T>(names: readonly string[]): (value: unknown) => ValidationResult<T> {
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return {
        issues: [{ path: [], message: `expected object, received ${jsonTypeName(value)}` }],
      };
    }
    const issues: SchemaIssue[] = [];
    const fields = value as Record<string, unknown>;
    for (const name of names) {
      if (!Object.hasOwn(fields, name)) issues.push({ path: [name], message: "required" });
      else if (typeof fields[name] !== "string") {
        const message = `expected string, received ${jsonTypeName(fields[name])}`;
        issues.push({ path: [name], message });
      }
    }
    for (const key of Object.keys(fields)) {
      if (!names.includes(key)) issues.push({ path: [key], message: "unknown property" });
    }
    return issues.length === 0 ? { value: value as T } : { issues };
  };
}
