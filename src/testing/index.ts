export type { AutoProvider, AutoProviderOptions } from "./auto-provider.js";
export { autoProvider } from "./auto-provider.js";
export type { CassetteMode, CassetteOptions } from "./cassette.js";
export { cassette } from "./cassette.js";
export type { Cassette, CassetteCall, CassetteProvider } from "./cassette-file.js";
export { CassetteError } from "./cassette-file.js";
export type { Json } from "./cassette-json.js";
export type { RecordOptions } from "./cassette-record.js";
export { recordProvider } from "./cassette-record.js";
export type {
  CassetteMatch,
  CassetteMatcher,
  ReplayOptions,
  ReplayProvider,
} from "./cassette-replay.js";
export { replayProvider } from "./cassette-replay.js";
export type { CallDecision, FormatDecisionsOptions } from "./decisions.js";
export { decisionsOf, formatDecisions } from "./decisions.js";
export type { FunctionProvider, FunctionProviderInfo } from "./function-provider.js";
export { functionProvider } from "./function-provider.js";
export type { NoNetwork } from "./no-network.js";
export { noNetwork } from "./no-network.js";
export type { ScriptedProvider } from "./scripted-provider.js";
export { scriptedProvider } from "./scripted-provider.js";
export type {
  MakeRunStore,
  StoreCheck,
  StoreConformanceOptions,
} from "./store-conformance.js";
export { runStoreConformance } from "./store-conformance.js";
export type { FakeProviderOptions, ScriptedToolCall, ScriptedTurn, TurnReply } from "./turn.js";
