/**
 * tollgate/cedar: a `LoopPolicy` that asks Cedar (`@cedar-policy/cedar-wasm`, an optional peer,
 * run in process) whether the run's user may call each tool.
 *
 * @packageDocumentation
 */
export {
  type CedarEntityUid,
  type CedarExplanation,
  type CedarPolicy,
  type CedarPolicyOptions,
  cedarPolicy,
} from "./cedar-policy.js";
