import type { ValidationResult } from "./validation-result.js";

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

/** A raw JSON Schema with a validator, built by `jsonSchema()`; also a Standard Schema. */
export interface JsonSchema<T = unknown, In = T> extends StandardSchema<In, T> {
  readonly jsonSchema: Record<string, unknown>;
}
