/**
 * The core's public API, all of "tollgate" but `jsonSchema()` (index.ts adds it). The modules
 * that load on first need (what `import()` reaches: step-features, prepare-resume, the resume
 * plan, state-check) import what they use of the core from here, so each of them reaches the
 * whole core. Why: a bundler puts every module in a chunk by the set of entries and `import()`s
 * that reach it; a lazy module reaching only part of the core split a user's start into 7
 * chunks (51.3 kB min+gzip), and Node's `import "tollgate"` into 10 files. Reaching all of it,
 * the start is one chunk beside the entry (46.1 kB) and Node loads 4 files. `jsonSchema()` and
 * the validator it imports stay out of here, so an app without raw JSON Schema tools bundles the
 * validator only with what loads later. Nothing the core imports statically may import this
 * file (test/repo/core-reach.test.ts).
 */
export { AgentLoop } from "./api/agent-loop.js";
export type { AgentToolOptions, PromptInput } from "./api/agent-tool.js";
export type { ResumeOptions, RunOptions } from "./api/run-options.js";
export { type EventStreamOptions, toEventStream } from "./api/to-event-stream.js";
export {
  DuplicateToolError,
  HookError,
  ModelCallBlockedError,
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
  ToolFailureError,
  ToolOutputError,
  ToolRetriesExceededError,
  UnknownToolError,
} from "./errors.js";
export type { Decision, LoopPolicy, PreparedStep, StepTools } from "./gate/policy.js";
export type { AbortedRun } from "./loop/aborted-runs.js";
export { abortedRunsOf } from "./loop/aborted-runs.js";
export type { RunEventStream } from "./loop/event-queue.js";
export type { ProviderDefinition } from "./model/define-provider.js";
export { defineProvider } from "./model/define-provider.js";
export { collectResponse } from "./model/response-assembler.js";
export { handoff, removeToolCalls } from "./options/handoffs.js";
export type { AgentLoopBaseOptions, AgentLoopOptions, DepsOption } from "./options/loop-options.js";
export { hasToolCall, stepCountIs } from "./options/stop-conditions.js";
export type {
  InferOutputOf,
  OutputMode,
  OutputOption,
  OutputSchema,
} from "./output/output-option.js";
export type {
  OutputValidator,
  OutputValidatorContext,
  OutputVerdict,
} from "./output/output-validator.js";
export type {
  ApprovalDecision,
  ApprovalDecisions,
  ExternalResult,
} from "./state/resume/decisions.js";
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
  SchemaIssue,
  ValidationResult,
} from "./tools/schema.js";
export type { ToolDefinition, ToolFactory } from "./tools/tool.js";
export { tool, withMaxRetries } from "./tools/tool.js";
export { Toolset, toolset } from "./tools/toolset.js";
export type {
  ListenerErrorHandler,
  LoopEvent,
  LoopEventOf,
  LoopEventType,
  LoopListener,
} from "./types/events.js";
export type {
  Handoff,
  HandoffAgent,
  HandoffInput,
  HandoffInputFilter,
  HandoffOptions,
} from "./types/handoff.js";
export type {
  ModelResponseView,
  PostModelCallHook,
  PostModelCallInfo,
  PostModelCallVerdict,
  PostToolCallHook,
  PostToolCallInfo,
  PostToolCallVerdict,
  PreModelCallHook,
  PreModelCallInfo,
  PreModelCallVerdict,
  PreToolCallHook,
  PreToolCallInfo,
  PreToolCallVerdict,
} from "./types/hooks.js";
export type { CallCounts, LimitName, ReachedLimit, UsageLimits } from "./types/limits.js";
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
} from "./types/messages.js";
export type {
  FinishReason,
  ModelRequest,
  ModelResponse,
  ModelSettings,
  ModelStreamPart,
  Provider,
  ProviderCallOptions,
  ResponseFormat,
} from "./types/provider.js";
export type { RunEnding, RunResult, RunResultBase } from "./types/run-result.js";
export type {
  DeniedCall,
  RememberedDecision,
  RunState,
  RunStatus,
  StoredStep,
  SubRunParent,
} from "./types/run-state.js";
export type { StandardSchema } from "./types/schema.js";
export type {
  CallRecord,
  DecidedBy,
  ExternalCall,
  ModelHookBy,
  ModelVerdictRecord,
  PendingApproval,
  StepRecord,
  SubRunState,
  UnsettledCall,
  Verdict,
} from "./types/step-record.js";
export type { StopCondition, StopContext, StoppedBy } from "./types/stop-conditions.js";
export type { NeedsApproval, Tool, ToolContext } from "./types/tool.js";
export type { ToolAnnotations } from "./types/tool-annotations.js";
export type {
  FormatToolError,
  RepairInfo,
  RepairProvider,
  RepairToolCall,
  ToolErrorInfo,
  ToolErrorKind,
} from "./types/tool-feedback.js";
export type { ToolContent } from "./util/content-parts.js";
export { toolContent } from "./util/content-parts.js";
export { contentText } from "./util/message-text.js";
