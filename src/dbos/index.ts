export type { Pause, WaitingCall } from "../util/durable-pauses.js";
export { OUTCOME_UNKNOWN } from "../util/durable-pauses.js";
export {
  type DbosAgent,
  type DbosAgentOptions,
  dbosAgent,
  type WaitingRun,
} from "./dbos-agent.js";
