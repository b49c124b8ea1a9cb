import type { Attributes, Tracer } from "@opentelemetry/api";
import { SpanStatusCode } from "@opentelemetry/api";
import type { LoopEvent, LoopListener } from "tollgate";
import { ERROR_TYPE, GEN_AI, TOLLGATE } from "./attributes.js";
import { contentText, errorTypeOf } from "./error-type.js";
import { type OtelListenerOptions, resolveOtelOptions } from "./options.js";
import { failed, type ParentRef, type RunSpans, SpanTree, type SpanUsage } from "./span-tree.js";

/**
 * An event listener that traces runs with OpenTelemetry, for `onEvent`: one `invoke_agent`
 * span per run (a sub-agent's run under its parent's `execute_tool` span), one `chat` span per
 * model call and one `execute_tool` span per tool call the model asks for, with the GenAI
 * semantic-convention attributes and the gate's verdict as `tollgate.gate.*`. A call the gate
 * refused, or one waiting for approval, still gets its span (with the verdict), so a trace shows
 * every call the model tried. Args, results and the model's output only with `recordContent`.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools, onEvent: otelListener(trace.getTracer("my-app")) });
 */
export function otelListener(tracer: Tracer, options?: OtelListenerOptions): LoopListener {
  const { recordContent, agentName } = resolveOtelOptions(tracer, options);
  const tree = new SpanTree(tracer);

  const handle = (event: LoopEvent, parent?: ParentRef): void => {
    if (event.type === "sub-run") {
      const { runId, step, toolCallId, toolName } = event;
      handle(event.event, { runId, step, toolCallId, toolName });
      // A sub-run's model calls (at any depth) count toward this run's span too.
      const spans = tree.run(runId);
      const inner = innermost(event);
      if (spans && inner.type === "model-response") addUsage(spans, inner.usage);
      return;
    }
    if (event.type === "run-start") {
      tree.startRun(event.runId, parent?.toolName ?? agentName, event.resumed, parent);
      return;
    }
    const run = tree.run(event.runId);
    if (!run) return; // a run that started before this listener was added
    switch (event.type) {
      case "step-start":
        tree.startChat(run, event.step, event.provider, event.model);
        return;
      case "model-response": {
        const chat = run.chats.get(event.step);
        if (!chat) return;
        run.chats.delete(event.step);
        addUsage(run, event.usage);
        chat.setAttributes({
          [GEN_AI.finishReasons]: [event.finishReason],
          ...usageAttributes(event.usage),
        });
        if (recordContent) {
          const message = { role: "assistant", parts: event.response.parts };
          chat.setAttribute(GEN_AI.outputMessages, contentText([message]));
        }
        chat.end();
        return;
      }
      case "model-hook": {
        // A model-side hook's verdict, on its model call's span (a request stopped or blocked
        // never reaches the provider: its span ends with the run).
        const chat = run.chats.get(event.step);
        if (!chat) return;
        const attributes: Record<string, string> = {
          [TOLLGATE.modelHookPhase]: event.phase,
          [TOLLGATE.modelHookVerdict]: event.verdict,
          [TOLLGATE.modelHookBy]: event.by,
        };
        if (event.reason !== undefined) attributes[TOLLGATE.modelHookReason] = event.reason;
        chat.addEvent("tollgate.model_hook", attributes);
        return;
      }
      case "tool-call": {
        const open = tree.tool(run, event.step, event.toolCallId, event.toolName);
        if (recordContent) open.span.setAttribute(GEN_AI.toolArguments, event.rawArgs);
        return;
      }
      case "tool-decision": {
        const open = tree.tool(run, event.step, event.toolCallId, event.toolName);
        open.allowed = event.verdict === "allow";
        open.span.setAttributes({ [TOLLGATE.verdict]: event.verdict, [TOLLGATE.by]: event.by });
        if (event.reason !== undefined) open.span.setAttribute(TOLLGATE.reason, event.reason);
        // The final args, as hooks and a human's edit left them.
        if (recordContent && event.call) {
          open.span.setAttribute(GEN_AI.toolArguments, contentText(event.call.args));
        }
        return;
      }
      case "tool-post-decision": {
        const open = run.tools.get(event.toolCallId);
        if (!open) return;
        open.span.setAttributes({
          [TOLLGATE.postVerdict]: event.verdict,
          [TOLLGATE.postBy]: event.by,
        });
        if (event.reason !== undefined) open.span.setAttribute(TOLLGATE.postReason, event.reason);
        return;
      }
      case "tool-error": {
        const open = run.tools.get(event.toolCallId);
        if (!open) return;
        open.errorType = errorTypeOf(event.error);
        failed(open.span, event.error, open.errorType);
        return;
      }
      case "tool-result": {
        const open = tree.tool(run, event.step, event.toolCallId, event.toolName);
        open.span.setAttribute(TOLLGATE.toolMs, event.ms);
        if (recordContent) open.span.setAttribute(GEN_AI.toolResult, contentText(event.output));
        // A refused call's error result is the gate's answer, not a failure; a tool's is.
        if (event.isError && open.allowed && open.errorType === undefined) {
          open.span.setAttribute(ERROR_TYPE, "tool_error");
          open.span.setStatus({ code: SpanStatusCode.ERROR, message: contentText(event.output) });
        }
        tree.endTool(run, event.toolCallId);
        return;
      }
      case "handoff":
        // The run's span goes on under the agent it started with; the handoff is an event on it.
        run.span.addEvent("tollgate.handoff", {
          [TOLLGATE.handoffFrom]: event.from,
          [TOLLGATE.handoffTo]: event.to,
          [TOLLGATE.step]: event.step,
          [GEN_AI.toolCallId]: event.toolCallId,
        });
        return;
      case "run-finish":
        // This span's own tokens: a resumed run's `usage` also counts the legs before the pause.
        run.span.setAttributes(usageAttributes(run.usage));
        tree.endRun(event.runId, event.status);
        return;
      case "run-error":
        tree.endRun(event.runId, "error", event.error);
        return;
      default:
        return; // deltas and step-finish: the spans above already say it
    }
  };
  return (event) => handle(event);
}

/** The event a chain of `sub-run` wrappers carries. */
function innermost(event: LoopEvent): LoopEvent {
  let inner = event;
  while (inner.type === "sub-run") inner = inner.event;
  return inner;
}

/** Adds a model call's tokens to a run span's count. */
function addUsage(run: RunSpans, usage: SpanUsage): void {
  run.usage.inputTokens += usage.inputTokens;
  run.usage.outputTokens += usage.outputTokens;
  if (usage.unknown) run.usage.unknown = true;
}

/** A span's token attributes: the counts, or only `tollgate.usage.unknown` (never a false 0). */
function usageAttributes(usage: SpanUsage): Attributes {
  if (usage.unknown) return { [TOLLGATE.usageUnknown]: true };
  return { [GEN_AI.inputTokens]: usage.inputTokens, [GEN_AI.outputTokens]: usage.outputTokens };
}
