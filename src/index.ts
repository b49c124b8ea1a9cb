export type { ResumeOptions, RunOptions } from "./agent-loop.js";
export { AgentLoop } from "./agent-loop.js";
export type { AgentToolOptions, PromptInput } from "./agent-tool.js";
export type { ToolContent } from "./content-parts.js";
export { toolContent } from "./content-parts.js";
export {
  DuplicateToolError,
  HookError,
  ModelRefusalError,
  ModelTimeoutError,
  OutputValidationError,
  PolicyError,
  ProviderError,
  ResumeError,
  RetryError,
  RunTimeoutError,
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
export type {
  PostToolCallHook,
  PostToolCallInfo,
  PostToolCallVerdict,
  PreToolCallHook,
  PreToolCallInfo,
  PreToolCallVerdict,
} from "./hooks.js";
export type { AbortedRun } from "./loop/aborted-runs.js";
export { abortedRunsOf } from "./loop/aborted-runs.js";
export type { RunEventStream } from "./loop/event-queue.js";
export type { AgentLoopBaseOptions, AgentLoopOptions, DepsOption } from "./loop-options.js";
export type {
  AssistantPart,
  FilePart,
  ImagePart,
  MediaSource,
  Message,
  TextPart,
  ToolCall,
  ToolContentPart,
  ToolResult,
  ToolSpec,
  Usage,
  UserPart,
} from "./messages.js";
export { contentText } from "./messages.js";
export type { ProviderDefinition } from "./model/define-provider.js";
export { defineProvider } from "./model/define-provider.js";
export { collectResponse } from "./model/response-assembler.js";
export type {
  InferOutputOf,
  OutputMode,
  OutputOption,
  OutputSchema,
} from "./output/output-option.js";
export type { Decision, LoopPolicy, PreparedStep, StepTools } from "./policy.js";
export type {
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelSettings,
  ModelStreamPart,
  Provider,
  ProviderCallOptions,
  ResponseFormat,
} from "./provider.js";
export type { RunEnding, RunResult, RunResultBase } from "./run-result.js";
export type { ApprovalDecision, ApprovalDecisions, ExternalResult } from "./state/resume-plan.js";
export type {
  DeniedCall,
  RememberedDecision,
  RunState,
  RunStatus,
  SubRunParent,
} from "./state/run-state.js";
export { RUN_STATE_VERSION } from "./state/run-state.js";
export type {
  FullRunStore,
  ListPendingOptions,
  PendingPage,
  PendingRun,
  RunLease,
  RunStore,
  RunStoreOptions,
} from "./state/run-store.js";
export { memoryRunStore } from "./state/run-store.js";
export { RUN_STATE_SCHEMA } from "./state/state-schema.js";
export type { StoredStep } from "./state/stored-steps.js";
export type {
  CallRecord,
  DecidedBy,
  ExternalCall,
  PendingApproval,
  StepRecord,
  SubRunState,
  UnsettledCall,
  Verdict,
} from "./step-record.js";
export type { StopCondition, StopContext, StoppedBy } from "./stop-conditions.js";
export { hasToolCall, stepCountIs } from "./stop-conditions.js";
export { type EventStreamOptions, toEventStream } from "./to-event-stream.js";
export type { ToolAnnotations } from "./tool-annotations.js";
export type {
  FormatToolError,
  RepairInfo,
  RepairToolCall,
  ToolErrorInfo,
  ToolErrorKind,
} from "./tool-feedback.js";
export type { ArgsLimits } from "./tools/args.js";
export type {
  CallLike,
  ToolCallInfo,
  ToolCallVerdict,
  ToolHook,
  ToolInput,
} from "./tools/on-tool.js";
export { isCallTo, onTool } from "./tools/on-tool.js";
export type {
  InferArgs,
  InferInput,
  InferOutput,
  JsonSchema,
  JsonSchemaValidator,
  SchemaIssue,
  StandardSchema,
  ValidationResult,
} from "./tools/schema.js";
export { jsonSchema } from "./tools/schema.js";
export type {
  NeedsApproval,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolFactory,
} from "./tools/tool.js";
export { tool, withMaxRetries } from "./tools/tool.js";
export { Toolset, toolset } from "./tools/toolset.js";
export type { CallCounts, LimitName, ReachedLimit, UsageLimits } from "./usage-limits.js";
