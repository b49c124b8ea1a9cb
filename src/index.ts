export type { ResumeOptions, RunOptions } from "./agent-loop.js";
export { AgentLoop } from "./agent-loop.js";
export type { ArgsLimits } from "./args.js";
export type { ProviderDefinition } from "./define-provider.js";
export { defineProvider } from "./define-provider.js";
export {
  DuplicateToolError,
  HookError,
  OutputValidationError,
  PolicyError,
  ProviderError,
  ResumeError,
  RetryError,
  StoreError,
  TollgateError,
  ToolExecutionError,
  ToolOutputError,
  ToolRetriesExceededError,
  UnknownToolError,
} from "./errors.js";
export type {
  ListenerErrorHandler,
  LoopEvent,
  LoopEventOf,
  LoopEventType,
  LoopListener,
} from "./events.js";
export type { PreToolCallHook, PreToolCallInfo, PreToolCallVerdict } from "./hooks.js";
export type { AgentLoopOptions } from "./loop-options.js";
export type {
  AssistantPart,
  Message,
  ToolCall,
  ToolResult,
  ToolSpec,
  Usage,
} from "./messages.js";
export type { Decision, LoopPolicy, PreparedStep, StepTools } from "./policy.js";
export type {
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelSettings,
  ModelStreamPart,
  Provider,
  ProviderCallOptions,
} from "./provider.js";
export { collectResponse } from "./response-assembler.js";
export type { ApprovalDecision, ApprovalDecisions } from "./resume.js";
export type { RunResult } from "./run-result.js";
export type { DeniedCall, RunState, RunStatus } from "./run-state.js";
export { RUN_STATE_VERSION } from "./run-state.js";
export type { RunLease, RunStore, RunStoreOptions } from "./run-store.js";
export { memoryRunStore } from "./run-store.js";
export type {
  InferInput,
  InferOutput,
  JsonSchema,
  JsonSchemaValidator,
  SchemaIssue,
  StandardSchema,
  ValidationResult,
} from "./schema.js";
export { jsonSchema } from "./schema.js";
export { RUN_STATE_SCHEMA } from "./state-schema.js";
export type {
  CallRecord,
  DecidedBy,
  PendingApproval,
  StepRecord,
  UnsettledCall,
  Verdict,
} from "./step-record.js";
export type { NeedsApproval, Tool, ToolContext, ToolDefinition } from "./tool.js";
export { tool, withMaxRetries } from "./tool.js";
export { Toolset, toolset } from "./toolset.js";
