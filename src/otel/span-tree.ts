import {
  type Context,
  context as contextApi,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { ERROR_TYPE, GEN_AI, OPERATION, TOLLGATE } from "./attributes.js";
import { errorTypeOf, messageOf } from "./error-type.js";

/** One tool call's span, and the sub-runs (agents as tools) it started. */
export interface ToolSpan {
  span: Span;
  context: Context;
  /** The gate let the call run: an error result is then the tool's failure. */
  allowed: boolean;
  /** The tool threw (`tool-error`): its `error.type`. */
  errorType?: string;
  subRuns: Set<string>;
}

/** One run's spans: its `invoke_agent` span, open `chat` spans by step, open tool spans by call id. */
export interface RunSpans {
  span: Span;
  context: Context;
  chats: Map<number, Span>;
  tools: Map<string, ToolSpan>;
  /**
   * The tokens of the model calls made under this span (its own and its sub-runs'): a resumed
   * run's span counts only what it used, where `run-finish` gives the total since the run began.
   */
  usage: SpanUsage;
}

/** The tokens a span counts; `unknown` once a model call under it reported none. */
export interface SpanUsage {
  inputTokens: number;
  outputTokens: number;
  unknown?: true | undefined;
}

/** Where a sub-run starts: its parent run and the call that runs it. */
export interface ParentRef {
  runId: string;
  step: number;
  toolCallId: string;
  toolName: string;
}

/** Paused runs remembered for linking their resumed run (bounded: the latest 1,000). */
const REMEMBERED_PAUSES = 1000;

/**
 * The open spans of every run a listener sees. Each span is started with its parent's context
 * given explicitly (`trace.setSpan`), so nesting holds across `await`, parallel calls and
 * sub-runs without a registered context manager. Ending a run (or a call) ends every span
 * still open under it.
 */
export class SpanTree {
  readonly #tracer: Tracer;
  readonly #runs = new Map<string, RunSpans>();
  readonly #paused = new Map<string, SpanContext>();

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  /** The open spans of a run, if it started under this listener. */
  run(runId: string): RunSpans | undefined {
    return this.#runs.get(runId);
  }

  /** Starts a run's `invoke_agent` span: under its parent call's span, or the caller's active context. */
  startRun(runId: string, agentName: string, resumed: boolean, parent?: ParentRef): RunSpans {
    const open = this.#runs.get(runId);
    if (open) this.endRun(runId, "error", new Error("the run started again before it ended"));
    // A resumed parent runs its approved call without a new `tool-call`: its span starts here.
    const parentRun = parent && this.#runs.get(parent.runId);
    const parentTool =
      parent && parentRun && this.tool(parentRun, parent.step, parent.toolCallId, parent.toolName);
    const parentContext = parentTool?.context ?? contextApi.active();
    const links: Link[] = [];
    const pausedBefore = resumed ? this.#paused.get(runId) : undefined;
    if (pausedBefore) {
      links.push({ context: pausedBefore, attributes: { [TOLLGATE.runStatus]: "paused" } });
      this.#paused.delete(runId);
    }
    const span = this.#tracer.startSpan(
      `${OPERATION.invokeAgent} ${agentName}`,
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          [GEN_AI.operationName]: OPERATION.invokeAgent,
          [GEN_AI.agentName]: agentName,
          [GEN_AI.conversationId]: runId,
          [TOLLGATE.runId]: runId,
          [TOLLGATE.runResumed]: resumed,
        },
      },
      parentContext,
    );
    const spans: RunSpans = {
      span,
      context: trace.setSpan(parentContext, span),
      chats: new Map(),
      tools: new Map(),
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    this.#runs.set(runId, spans);
    parentTool?.subRuns.add(runId);
    return spans;
  }

  /** Starts a step's `chat` span under its run. */
  startChat(run: RunSpans, step: number, provider: string, model: string): void {
    run.chats.get(step)?.end();
    const span = this.#tracer.startSpan(
      `${OPERATION.chat} ${model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: OPERATION.chat,
          [GEN_AI.providerName]: provider,
          [GEN_AI.requestModel]: model,
          [TOLLGATE.step]: step,
        },
      },
      run.context,
    );
    run.chats.set(step, span);
  }

  /** A call's `execute_tool` span, started under its run when the call first shows up. */
  tool(run: RunSpans, step: number, toolCallId: string, toolName: string): ToolSpan {
    const open = run.tools.get(toolCallId);
    if (open) return open;
    const span = this.#tracer.startSpan(
      `${OPERATION.executeTool} ${toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operationName]: OPERATION.executeTool,
          [GEN_AI.toolName]: toolName,
          [GEN_AI.toolCallId]: toolCallId,
          [GEN_AI.toolType]: "function",
          [TOLLGATE.step]: step,
        },
      },
      run.context,
    );
    const opened: ToolSpan = {
      span,
      context: trace.setSpan(run.context, span),
      allowed: false,
      subRuns: new Set(),
    };
    run.tools.set(toolCallId, opened);
    return opened;
  }

  /** Ends a call's span, and any sub-run it started that is still open (it failed with the call). */
  endTool(run: RunSpans, toolCallId: string): void {
    const open = run.tools.get(toolCallId);
    if (!open) return;
    run.tools.delete(toolCallId);
    for (const subRun of open.subRuns) {
      this.endRun(subRun, "error", new Error("the sub-run ended with its parent's call"));
    }
    open.span.end();
  }

  /**
   * Ends a run's span and every span still open under it: `status` is the run's status
   * ("error" with the error for a run that threw or was aborted). A paused run is remembered
   * so that its resumed run can link to it.
   */
  endRun(runId: string, status: string, error?: unknown): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    this.#runs.delete(runId);
    for (const chat of run.chats.values()) {
      if (error !== undefined) failed(chat, error);
      chat.end();
    }
    run.chats.clear();
    for (const [toolCallId, open] of run.tools) {
      open.span.setAttribute(TOLLGATE.runStatus, status);
      if (error !== undefined && open.allowed) failed(open.span, error);
      this.endTool(run, toolCallId);
    }
    run.span.setAttribute(TOLLGATE.runStatus, status);
    if (error !== undefined) failed(run.span, error);
    if (status === "needs_approval" || status === "needs_results") {
      this.#paused.set(runId, run.span.spanContext());
      if (this.#paused.size > REMEMBERED_PAUSES) {
        const oldest = this.#paused.keys().next();
        if (!oldest.done) this.#paused.delete(oldest.value);
      }
    }
    run.span.end();
  }
}

/** Marks a span failed: status ERROR with the error's message, `error.type`, the exception event. */
export function failed(span: Span, error: unknown, errorType = errorTypeOf(error)): void {
  span.setAttribute(ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
  if (error instanceof Error) span.recordException(error);
}
