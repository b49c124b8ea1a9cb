export type { FunctionProvider, FunctionProviderInfo } from "./function-provider.js";
export { functionProvider } from "./function-provider.js";
export type { ScriptedProvider } from "./scripted-provider.js";
export { scriptedProvider } from "./scripted-provider.js";
export type { FakeProviderOptions, ScriptedToolCall, ScriptedTurn, TurnReply } from "./turn.js";
