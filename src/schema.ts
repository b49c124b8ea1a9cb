import * as z4 from "zod/v4/core";
import { zodToJsonSchema } from "zod-to-json-schema";
import { validateJsonSchema } from "./json-schema-validator.js";
import type { SchemaIssue, ValidationResult } from "./validation-result.js";

export type { SchemaIssue, ValidationResult };

/**
 * The Standard Schema v1 shape (zod 3.24+, zod 4, valibot, arktype, ...), with the optional
 * Standard JSON Schema converter. Written out here so the core needs no types package.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => ValidationResult<Output> | Promise<ValidationResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/** The value type a schema produces. */
export type InferOutput<S> = S extends StandardSchema<any, infer Out> ? Out : unknown;

/** A raw JSON Schema with a validator, built by `jsonSchema()`; also a Standard Schema. */
export interface JsonSchema<T = unknown> extends StandardSchema<T, T> {
  readonly jsonSchema: Record<string, unknown>;
}

/** A validator for `jsonSchema()`: a Standard Schema, or a function returning its result shape. */
export type JsonSchemaValidator<T> =
  | StandardSchema<unknown, T>
  | ((value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>>);

/**
 * Wraps a raw JSON Schema as a tool input. Give `validate` to check args your own way (any
 * Standard Schema, or a function); without it, args are checked by a small built-in validator
 * that knows `type`, `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`,
 * `anyOf`/`oneOf`/`allOf`, `pattern`, and the min/max keywords, and ignores the rest.
 *
 * @example
 * const input = jsonSchema<{ city: string }>({
 *   type: "object", properties: { city: { type: "string" } }, required: ["city"],
 * });
 */
export function jsonSchema<T = unknown>(
  schema: Record<string, unknown>,
  validate?: JsonSchemaValidator<T>,
): JsonSchema<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError("jsonSchema: the schema must be a JSON Schema object");
  }
  const check =
    validate === undefined
      ? (value: unknown) => validateJsonSchema(schema, value) as ValidationResult<T>
      : typeof validate === "function"
        ? validate
        : validate["~standard"].validate;
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

/** A tool's input schema, normalised: the JSON Schema for the model and the validator. */
export interface NormalizedSchema<T> {
  readonly jsonSchema: Record<string, unknown>;
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

/**
 * Normalises any supported schema once: zod v4 through `zod/v4/core`, zod v3 through
 * zod-to-json-schema (which gives an empty schema for zod v4), Standard JSON Schema, or
 * `jsonSchema()`. Throws a `TypeError` naming what is missing otherwise.
 */
export function normalizeSchema<T>(input: unknown, toolName: string): NormalizedSchema<T> {
  const standard = (input as StandardSchema<unknown, T> | undefined)?.["~standard"];
  if (typeof standard?.validate !== "function") {
    throw new TypeError(
      `tool "${toolName}": \`input\` must be a zod schema, a Standard Schema, or jsonSchema({...})`,
    );
  }
  return {
    jsonSchema: toJsonSchema(input as StandardSchema, toolName),
    validate: standard.validate,
  };
}

function toJsonSchema(schema: StandardSchema, toolName: string): Record<string, unknown> {
  if (schema instanceof z4.$ZodType) {
    return z4.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
  }
  if (schema["~standard"].vendor === "zod" && "_def" in schema) {
    return zodToJsonSchema(schema as never, { $refStrategy: "none" }) as Record<string, unknown>;
  }
  const converter = schema["~standard"].jsonSchema;
  if (converter) return converter.input({ target: "draft-2020-12" });
  throw new TypeError(
    `tool "${toolName}": this ${schema["~standard"].vendor} schema cannot describe itself as JSON Schema; ` +
      "wrap it as jsonSchema(theJsonSchema, schema) to give the model a JSON Schema and keep its validation",
  );
}

/** "city: expected string; items[0]: required" — issues with the paths that failed. */
export function formatIssues(issues: ReadonlyArray<SchemaIssue>): string {
  return issues
    .map((issue) => {
      const path = formatPath(issue.path);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

function formatPath(path: SchemaIssue["path"]): string {
  let text = "";
  for (const segment of path ?? []) {
    const key = typeof segment === "object" ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}
