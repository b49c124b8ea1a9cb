import { installModelHooks } from "./call-model.js";
import { installJudgedOutput } from "./guard-output.js";
import { guardRequest, guardResponse, releasedParts, unsentResponse } from "./model-hooks.js";
import { judgedOutput } from "./post-call-guard.js";
import { preparedStep } from "./prepare-answer.js";
import { installPreparedStep } from "./prepare-step.js";
import { installSteeringRecord } from "./step.js";
import { steeringRecord } from "./step-steering.js";

/**
 * The step's optional features, a chunk of their own: `prepareStep`'s answer, the model hooks
 * and the post-call hooks. The loop loads it before the first step of a run whose options use
 * one (`run-loop.ts`), so a loop without them never loads their code; each module that asks for
 * one holds its slot, filled here.
 */
export function installStepFeatures(): void {
  installPreparedStep(preparedStep);
  installModelHooks({ guardRequest, guardResponse, releasedParts, unsentResponse });
  installSteeringRecord(steeringRecord);
  installJudgedOutput(judgedOutput);
}
