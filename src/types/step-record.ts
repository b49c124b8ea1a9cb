import type { ToolResult, Usage } from "./messages.js";
import type { ModelRequest, ModelResponse, ModelSettings } from "./provider.js";

/** What the gate decided for one call. */
export type Verdict =
  | "allow"
  | "deny"
  | "needs-approval"
  | "block"
  | "result"
  | "stop"
  | "invalid"
  | "unavailable";

/** Who decided: a hook (0-based index), the policy, the tool's `needsApproval`, the schema, a human, or the default. */
export type DecidedBy = `hook:${number}` | "policy" | "tool" | "schema" | "default" | "approval";

/** One tool call of a step: what the model sent, what the gate decided, and what came of it. */
export interface CallRecord {
  toolCallId: string;
  toolName: string;
  /** The args' JSON text as the model sent it. */
  rawArgs: string;
  /**
   * The final args in the model's form: the JSON the model sent, completed with the schema's
   * defaults and validated against the schema, as hooks and a human's edit left them. Absent when they did not pass (invalid JSON,
   * a limit, the schema) or the tool was not callable.
   * The schema's output (what `execute` gets) is computed from these, once, right before it runs.
   */
  args?: unknown;
  /** The args before a human edited them on approval (model's form). */
  editedFrom?: unknown;
  /**
   * The model's args text when `repairToolCall` fixed it: the call failed parsing or
   * validation, and `args` are the repaired args (validated again, then gated).
   */
  repairedFrom?: string;
  /** In checkpoints: the call had started and not settled when the state was written. */
  started?: boolean;
  verdict: Verdict;
  by: DecidedBy;
  reason?: string;
  /** Absent only while the call waits for approval. */
  result?: ToolResult;
  /** How long the tool ran, when it ran. */
  ms?: number;
  /**
   * The call's tool is a sub-agent (`loop.asTool`) whose run paused for approval: its state,
   * which the parent's resume continues. Present only while the call waits on it (no `result`).
   */
  subRun?: SubRunState;
  /**
   * The call's tool is a client-side tool (`external`): the call was allowed and waits for
   * its result from `resume()`. Present only while it waits (no `result`).
   */
  external?: true;
}

/**
 * A paused sub-run's `RunState`, as its parent's call record holds it (typed loosely here:
 * step records come before states).
 */
export interface SubRunState {
  readonly runId: string;
  readonly stateId: string;
  readonly [field: string]: unknown;
}

/** One step: one model call and the tool calls it asked for. */
export interface StepRecord {
  index: number;
  /** Names of the tools shown to the model. */
  tools: string[];
  /** Names of the tools that could run. */
  callable: string[];
  toolChoice?: ModelRequest["toolChoice"];
  response: Omit<ModelResponse, "raw">;
  calls: CallRecord[];
  usage: Usage;
  /** Wall time of the step, model call and tools together. */
  ms: number;
  /** The step's system prompt, when `prepareStep` gave one instead of the run's. */
  instructions?: string;
  /** The settings `prepareStep` gave this step (over the run's, key by key), as JSON. */
  settings?: ModelSettings;
  /** The model of this step, when `prepareStep` gave another provider than the loop's. */
  provider?: { name: string; model: string };
  /**
   * How many messages the model was sent, when `prepareStep` rewrote them (compaction,
   * trimming); the transcript itself keeps every message.
   */
  messages?: number;
  /**
   * What the model-side hooks (`preModelCall`, `postModelCall`) said in this step, in order:
   * one entry per verdict that changed something. Present only when a hook gave one.
   */
  modelVerdicts?: ModelVerdictRecord[];
  /** The agent that ran this step (its loop's `name`), when it has one: a handoff changes it. */
  agent?: string;
}

/** Which model-side hook decided (0-based, as `preModelCall` and `postModelCall` count). */
export type ModelHookBy = `pre-model:${number}` | `post-model:${number}`;

/** One model-side hook's verdict, as a step record and a `model-hook` event give it. */
export interface ModelVerdictRecord {
  /** "request": a `preModelCall` hook, before the provider was called; "response": a `postModelCall` hook. */
  phase: "request" | "response";
  by: ModelHookBy;
  verdict: "messages" | "text" | "block" | "stop";
  /** The block's reason, or the stop's `stopReason`, when there is one. */
  reason?: string;
}

/** A call waiting for a human's decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  args: unknown;
  reason?: string;
  /**
   * SHA-256 of (runId, toolCallId, toolName, args, and the digest of the paused state): a
   * decision carrying it was made for this exact call in this exact state.
   */
  digest: string;
  /**
   * Present when the call is a sub-agent's (`loop.asTool`): `runId` is the sub-run that waits
   * on it, `path` the ids of the calls it is nested in, outermost first (the parent's call to
   * the sub-agent, then, deeper, the sub-agent's own). Decide it by `toolCallId`, or by
   * `[...path, toolCallId].join("/")` when two pending calls share an id.
   */
  subRun?: { runId: string; path: string[] };
}

/**
 * An allowed call to a client-side tool, waiting for its result: run it where it belongs and
 * give `resume()` `{ [toolCallId]: { result } }` or `{ [toolCallId]: { error } }`.
 */
export interface ExternalCall {
  toolCallId: string;
  toolName: string;
  /** The args in the model's form (JSON completed with the schema's defaults, checked, after hooks). */
  args: unknown;
  /** As on `PendingApproval`: a result entry carrying it was given for this exact call in this exact state. */
  digest: string;
  /** As on `PendingApproval`: the sub-run the call belongs to, when a sub-agent's. */
  subRun?: { runId: string; path: string[] };
}

/**
 * A call that had started and not settled when its run was aborted: its side effects are
 * uncertain. Listed on the abort reason's `unsettledCalls` (when the reason is an object that is
 * not frozen), and on each run `abortedRunsOf(reason)` gives.
 */
export interface UnsettledCall {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
}
