/**
 * The step's optional features, a chunk of their own: `prepareStep`'s answer and the model
 * hooks. They load with the first run whose loop has one (`stepFeaturesLoading`), so a loop
 * without them never loads their code.
 */
export { guardRequest, guardResponse, releasedParts, unsentResponse } from "./model-hooks.js";
export { preparedStep } from "./prepare-answer.js";
export { steeringRecord } from "./step-steering.js";
