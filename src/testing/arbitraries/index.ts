/**
 * `tollgate/testing/arbitraries`: fast-check arbitraries of model scripts over your own tools,
 * so a property test can check your gate against whatever the model might say. Needs
 * `fast-check` (an optional peer).
 */

export { arbitraryOfSchema, SchemaArbitraryError } from "./schema-arbitrary.js";
export type { ArbitraryTurnsOptions } from "./turns.js";
export { arbitraryTurns } from "./turns.js";
