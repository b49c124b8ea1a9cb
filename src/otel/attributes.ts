/**
 * The OpenTelemetry GenAI semantic-convention names this entry writes (semconv 1.37+:
 * `gen_ai.provider.name` replaced `gen_ai.system`), defined here rather than imported from
 * `@opentelemetry/semantic-conventions/incubating`, which marks them experimental and moves them.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  outputMessages: "gen_ai.output.messages",
} as const;

/** `error.type`: the error's class name (or `tool_error` for a tool's error result). */
export const ERROR_TYPE = "error.type";

/** tollgate's own attributes: the gate's decision, the post-call chain's, and the run's end. */
export const TOLLGATE = {
  runId: "tollgate.run.id",
  runResumed: "tollgate.run.resumed",
  /** How the run ended: a `RunStatus`, or "error" for a run that threw or was aborted. */
  runStatus: "tollgate.run.status",
  step: "tollgate.step",
  verdict: "tollgate.gate.verdict",
  by: "tollgate.gate.by",
  reason: "tollgate.gate.reason",
  postVerdict: "tollgate.post.verdict",
  postBy: "tollgate.post.by",
  postReason: "tollgate.post.reason",
  toolMs: "tollgate.tool.ms",
  /** A model-side hook's verdict (a span event on its model call): phase, verdict, hook, reason. */
  modelHookPhase: "tollgate.model_hook.phase",
  modelHookVerdict: "tollgate.model_hook.verdict",
  modelHookBy: "tollgate.model_hook.by",
  modelHookReason: "tollgate.model_hook.reason",
  /** A handoff (a span event on the run's span): the agent handing over and the one taking the run. */
  handoffFrom: "tollgate.handoff.from",
  handoffTo: "tollgate.handoff.to",
  /** `true` where the provider reported no token counts: the `gen_ai.usage.*` counts are left out. */
  usageUnknown: "tollgate.usage.unknown",
} as const;

/** The GenAI operation names (`gen_ai.operation.name`), which also begin the span names. */
export const OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;
