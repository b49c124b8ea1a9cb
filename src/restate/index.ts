export type { Pause, WaitingCall } from "../util/durable-pauses.js";
export { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";
export {
  type Refusal,
  type RestateAgent,
  type RestateAgentClient,
  type RestateAgentOptions,
  restateAgent,
  type WaitingRun,
} from "./restate-agent.js";
