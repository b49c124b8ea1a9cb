export type {
  DecideOutcome,
  DurableRuns,
  Pause,
  Refusal,
  WaitingCall,
} from "../util/durable-pauses.js";
export { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";
export { type DbosAgent, type DbosAgentOptions, dbosAgent } from "./dbos-agent.js";
export {
  type DbosAgentClient,
  type DbosAgentClientOptions,
  dbosAgentClient,
} from "./dbos-client.js";
export type { DbosRuns, WaitingRun } from "./dbos-runs.js";
