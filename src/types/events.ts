import type { ToolCall, Usage } from "./messages.js";
import type { FinishReason, ModelResponse } from "./provider.js";
import type { RunResult } from "./run-result.js";
import type { RunStatus } from "./run-state.js";
import type { DecidedBy, ModelHookBy, StepRecord, Verdict } from "./step-record.js";

/** Every event of a run, in the order they happen. Each carries its run's `runId`. */
export type LoopEvent =
  | { type: "run-start"; runId: string; resumed: boolean }
  | {
      type: "step-start";
      runId: string;
      step: number;
      tools: string[];
      callable: string[];
      /** The step's provider (`Provider.name`; `prepareStep` may give another for one step). */
      provider: string;
      /** The step's model (`Provider.model`). */
      model: string;
    }
  | { type: "text-delta"; runId: string; step: number; text: string }
  | { type: "reasoning-delta"; runId: string; step: number; text: string }
  | {
      type: "tool-call-delta";
      runId: string;
      step: number;
      index: number;
      id?: string;
      name?: string;
      argsDelta: string;
    }
  | {
      type: "model-response";
      runId: string;
      step: number;
      finishReason: FinishReason;
      usage: Usage;
      response: ModelResponse;
    }
  | {
      type: "tool-call";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      rawArgs: string;
    }
  | {
      type: "tool-decision";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      /** The call with its final args, when they parsed. */
      call?: ToolCall;
      verdict: Verdict;
      by: DecidedBy;
      reason?: string;
    }
  | {
      /**
       * What the post-call chain (`postToolCall`) made of an executed call's result, before
       * its `tool-result`: "pass" (no hook changed it, `by` "default"), "output" (replaced;
       * `by` the last hook that replaced it), "block" or "stop" (the output withheld; `by` the
       * hook that ended the chain). Only for loops with post-call hooks; `tool-decision` stays
       * the gate's one decision before the call.
       */
      type: "tool-post-decision";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      verdict: "pass" | "output" | "block" | "stop";
      by: `post:${number}` | "default";
      reason?: string;
    }
  | {
      /**
       * A model-side hook's verdict (`preModelCall`: phase "request", `postModelCall`: phase
       * "response"): one per verdict that changed something, as the hook gave it, before the
       * request is sent (or the response acted on). Carries no content: what was redacted or
       * blocked never reaches a listener.
       */
      type: "model-hook";
      runId: string;
      step: number;
      phase: "request" | "response";
      by: ModelHookBy;
      verdict: "messages" | "text" | "block" | "stop";
      /** The block's reason, or the stop's `stopReason`, when there is one. */
      reason?: string;
    }
  | {
      /**
       * A handoff took effect (`handoffs`): the agent `to` holds the run from the next step
       * on. `toolCallId` is the handoff call of step `step` that made it.
       */
      type: "handoff";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      from: string;
      to: string;
    }
  | {
      type: "tool-result";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      output: unknown;
      isError: boolean;
      ms: number;
    }
  | {
      /**
       * A tool's `execute` threw (not a `RetryError`), or returned a value JSON cannot carry:
       * the developer's bug, with the error and its stack. The model still gets its error
       * result (the `tool-result` after this event). Listeners get a frozen copy of the error
       * (same class, message, stack and own fields).
       */
      type: "tool-error";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      error: unknown;
      /** The error's stack, when it has one. */
      stack?: string;
    }
  | {
      /**
       * An event of a sub-agent's run (`loop.asTool`), started by this run's call `toolCallId`:
       * `event` is the sub-run's own event (its `runId` is the sub-run's), wrapped once per level.
       */
      type: "sub-run";
      runId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      event: LoopEvent;
    }
  | {
      /** Structured output taking shape while the model streams it (partial JSON, read leniently). */
      type: "output-delta";
      runId: string;
      step: number;
      output: unknown;
    }
  | { type: "step-finish"; runId: string; step: number; record: StepRecord }
  | { type: "run-finish"; runId: string; status: RunStatus; usage: Usage; result: RunResult }
  | {
      /**
       * The run failed instead of finishing: it threw, or was aborted (`signal`, `abandon()`,
       * `timeoutMs`, a lost lease). `error` is what `run()` rejects with (a frozen copy). The
       * run's last event; listeners only (`stream()` throws the error instead).
       */
      type: "run-error";
      runId: string;
      error: unknown;
    };

/** The names of the events. */
export type LoopEventType = LoopEvent["type"];

/** The event of one type. */
export type LoopEventOf<T extends LoopEventType> = Extract<LoopEvent, { type: T }>;

/** A listener; what it returns is ignored, what it throws (or rejects with) goes to `onListenerError`. */
export type LoopListener<T extends LoopEventType = LoopEventType> = (
  event: LoopEventOf<T>,
) => unknown;

/** Receives listener errors, which never reach the run. */
export type ListenerErrorHandler = (error: unknown, event: LoopEvent) => void;
