import type { JsonSchema, StandardSchema } from "../types/schema.js";
import type { ValidationResult } from "../types/validation-result.js";
import { kindOf } from "../util/values.js";
import { checkedJsonSchema } from "./checked-json-schema.js";
import { compileJsonSchema } from "./json-schema-validator.js";

// Its own file, and its own entry in the build: the JSON Schema validator (@cfworker/json-schema)
// is imported only from here and from what a resumed run loads, so an app that never calls
// jsonSchema() does not load it at start (a bundler follows every import of a file it keeps).

/** A validator for `jsonSchema()`: a Standard Schema, or a function returning its result shape. */
export type JsonSchemaValidator<T, In = T> =
  | StandardSchema<In, T>
  | ((value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>>);

/**
 * Wraps a raw JSON Schema as a tool input. Without `validate`, args are checked against every
 * keyword of the schema's draft (from `$schema`: draft-04 to 2020-12, 2020-12 when absent) by
 * @cfworker/json-schema, and every error is reported. The schema is copied and compiled here,
 * once: a schema the validator cannot use (an unresolvable `$ref`, a bad `pattern`, a keyword
 * of the wrong type) is a `TypeError` now. Give `validate` (a Standard Schema or a function)
 * to check args your own way; the schema is then only what the model is shown.
 *
 * @example
 * const input = jsonSchema<{ city: string }>({
 *   type: "object", properties: { city: { type: "string" } }, required: ["city"],
 * });
 */
export function jsonSchema<T = unknown, In = T>(
  schema: Record<string, unknown>,
  validate?: JsonSchemaValidator<T, In>,
): JsonSchema<T, In> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError(
      `jsonSchema(): the schema must be a JSON Schema object, e.g. { type: "object", properties: {...} }; got ${kindOf(schema)}`,
    );
  }
  const copy = jsonCopy(schema);
  return checkedJsonSchema(copy, validatorOf(copy, validate));
}

/** The schema as JSON data, as the model will read it: later changes to the original do not count. */
function jsonCopy(schema: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  } catch (error) {
    throw new TypeError(`jsonSchema(): the schema must be JSON data: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function validatorOf<T, In>(
  schema: Record<string, unknown>,
  validate: JsonSchemaValidator<T, In> | undefined,
): (value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>> {
  if (validate === undefined) {
    return compileJsonSchema(schema) as (value: unknown) => ValidationResult<T>;
  }
  if (typeof validate === "function") return validate;
  if (typeof validate?.["~standard"]?.validate === "function")
    return validate["~standard"].validate;
  throw new TypeError(
    `jsonSchema(): validate must be a Standard Schema (e.g. a zod schema) or a function; got ${kindOf(validate)}`,
  );
}
