export type {
  DecideOutcome,
  DurableRuns,
  Pause,
  Refusal,
  WaitingCall,
} from "../util/durable-pauses.js";
export { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";
export {
  type RestateAgent,
  type RestateAgentClient,
  type RestateAgentOptions,
  restateAgent,
  type WaitingRun,
} from "./restate-agent.js";
