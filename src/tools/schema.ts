import type * as z4 from "zod/v4/core";
import type { JsonSchema, StandardSchema } from "../types/schema.js";
import type { SchemaIssue, ValidationResult } from "../types/validation-result.js";
import { kindOf } from "../util/values.js";
import { nullableJsonProblem, optionalInputProblem } from "./optional-input.js";
import { formatIssues } from "./schema-issues.js";
import { zod3JsonSchema, zod4JsonSchema } from "./zod-json-schema.js";

export type { SchemaIssue, ValidationResult };
export { formatIssues };

/** The value type a schema produces: what `execute` gets (transforms applied). */
export type InferOutput<S> = S extends StandardSchema<any, infer Out> ? Out : unknown;

/** The value type a schema accepts: the args in the model's form, before the gate completes them. */
export type InferInput<S> = S extends StandardSchema<infer In, any> ? In : unknown;

/**
 * The args as every judge sees them (hooks made by `onTool`, `needsApproval`, `isCallTo`, a
 * paused run's `pending`): the schema's input with each field that has a default (zod
 * `.default()` / `.prefault()`, zod 3 `.default()`) present, since the gate fills it in before
 * anyone judges the call. Read from a zod object's shape, at every depth of nested objects;
 * any other schema gives its input type.
 */
export type InferArgs<S> = S extends { shape: infer Shape extends object }
  ? CompletedInput<InferInput<S>, Shape>
  : InferInput<S>;

/** An object's input type with its defaulted fields required, and nested objects completed. */
type CompletedInput<In, Shape> = In extends object
  ? Flat<
      {
        [K in keyof In as K extends DefaultedKeys<Shape> ? never : K]: FieldArgs<In[K], K, Shape>;
      } & {
        [K in keyof In as K extends DefaultedKeys<Shape> ? K : never]-?: Exclude<
          FieldArgs<In[K], K, Shape>,
          undefined
        >;
      }
    >
  : In;

/** A field's completed type: a nested zod object completes too. */
type FieldArgs<T, K, Shape> = K extends keyof Shape
  ? Shape[K] extends { shape: object }
    ? InferArgs<Shape[K]>
    : T
  : T;

/** The keys of a zod shape whose fields have a default the gate fills in. */
type DefaultedKeys<Shape> = {
  [K in keyof Shape]: HasDefault<Shape[K]> extends true ? K : never;
}[keyof Shape];

/** zod 4 marks a default in its def's type; zod 3's default schema has `removeDefault()`. */
type HasDefault<F> = F extends { _zod: { def: { type: "default" | "prefault" } } }
  ? true
  : F extends { removeDefault(): unknown }
    ? true
    : false;

/** `{ a } & { b }` shown as `{ a; b }`. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

export type { JsonSchema };

/** A tool's input schema, normalised: the JSON Schema for the model and the validator. */
export interface NormalizedSchema<T> {
  readonly jsonSchema: Record<string, unknown>;
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

/**
 * Normalises any supported schema once: zod v4 through `zod/v4/core`, zod v3 through
 * zod-to-json-schema (which gives an empty schema for zod v4), Standard JSON Schema, or
 * `jsonSchema()`. Throws a `TypeError` naming the tool and what to write instead when the
 * input is not a schema, or describes args a model cannot send: not an object at the top (nor
 * an optional or nullable one), or a type with no JSON Schema form inside.
 */
export function normalizeSchema<T>(input: unknown, toolName: string): NormalizedSchema<T> {
  const schema = asStandardSchema<T>(input, toolName);
  const optional = optionalInputProblem(schema);
  if (optional) throw new TypeError(`tool "${toolName}": \`input\` ${optional}`);
  const jsonSchema = toJsonSchema(schema, toolName);
  requireObjectSchema(jsonSchema, toolName);
  return { jsonSchema, validate: schema["~standard"].validate };
}

function asStandardSchema<T>(input: unknown, toolName: string): StandardSchema<unknown, T> {
  if (isStandardSchema(input)) return input as StandardSchema<unknown, T>;
  throw new TypeError(`tool "${toolName}": \`input\` ${whatInputIs(input)}`);
}

function isStandardSchema(value: unknown): value is StandardSchema {
  const standard = (value as StandardSchema | undefined)?.["~standard"];
  return typeof standard?.validate === "function";
}

/** What was passed instead of a schema, and what to write. */
function whatInputIs(input: unknown): string {
  if (input === undefined) {
    return "is missing; give the schema of the args, e.g. z.object({ city: z.string() }) (z.object({}) for none)";
  }
  if (typeof input === "function") {
    return "is a function; pass the schema itself, e.g. z.object({ city: z.string() }), not a function";
  }
  if (typeof input === "object" && input !== null) {
    if ("jsonSchema" in input) {
      return 'is an AI SDK schema (ai\'s jsonSchema() or zodSchema()); pass the zod schema itself, or use jsonSchema() from "tollgate"';
    }
    if (Object.values(input).some(isStandardSchema)) {
      return "is an object of field schemas; wrap it: z.object({ ...fields })";
    }
    if (["type", "properties", "$schema", "$ref", "anyOf", "oneOf"].some((key) => key in input)) {
      return 'is a raw JSON Schema; wrap it: jsonSchema({ ... }) from "tollgate"';
    }
  }
  return `must be a zod schema, a Standard Schema, or jsonSchema({...}); got ${kindOf(input)}`;
}

function toJsonSchema(schema: StandardSchema, toolName: string): Record<string, unknown> {
  if (typeof (schema as { _zod?: unknown })._zod === "object") {
    return zod4JsonSchema(schema as unknown as z4.$ZodType, toolName);
  }
  const def = (schema as { _def?: { typeName?: unknown } })._def;
  if (schema["~standard"].vendor === "zod" && typeof def?.typeName === "string") {
    return zod3JsonSchema(schema as never, toolName);
  }
  const converter = schema["~standard"].jsonSchema;
  if (converter) return converter.input({ target: "draft-2020-12" });
  throw new TypeError(
    `tool "${toolName}": this ${schema["~standard"].vendor} schema cannot describe itself as JSON Schema; ` +
      "wrap it as jsonSchema(theJsonSchema, schema) to give the model a JSON Schema and keep its validation",
  );
}

/** A model sends its args as one JSON object, so the schema must describe one at the top. */
function requireObjectSchema(schema: Record<string, unknown>, toolName: string): void {
  if (schema.type === "object") return;
  const nullable = nullableJsonProblem(schema);
  if (nullable) throw new TypeError(`tool "${toolName}": \`input\` ${nullable}`);
  const union = ["anyOf", "oneOf", "allOf"].find((key) => Array.isArray(schema[key]));
  const got =
    schema.type !== undefined
      ? `has type ${JSON.stringify(schema.type)}`
      : union
        ? `is a union or intersection (${union}) with no type of its own`
        : "has no type";
  const instead = union
    ? "write one z.object whose fields cover the cases (e.g. a `kind` enum and optional fields), or put the union in a field: z.object({ action: z.discriminatedUnion(...) })"
    : 'wrap it in a field: z.object({ value: ... }), or jsonSchema({ type: "object", properties: { value: ... }, required: ["value"] })';
  throw new TypeError(
    `tool "${toolName}": \`input\` must describe an object (JSON Schema \`type: "object"\` at the top), since a model sends its args as one JSON object; this one ${got}. Instead, ${instead}`,
  );
}
