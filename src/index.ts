/**
 * tollgate: an agent loop in which every tool call passes a gate. The core's API (core.ts) and
 * `jsonSchema()`, which imports the JSON Schema validator and is kept out of core.ts for it.
 */
export * from "./core.js";
export type { JsonSchemaValidator } from "./tools/json-schema.js";
export { jsonSchema } from "./tools/json-schema.js";
