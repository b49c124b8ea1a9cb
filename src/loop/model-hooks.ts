import { HookError, ModelCallBlockedError, messageOf } from "../errors.js";
import { askHook } from "../gate/hook-chain.js";
import { type KeyType, readVerdict, type VerdictRead } from "../gate/verdict.js";
import { freezeJson } from "../tools/args.js";
import type {
  ModelResponseView,
  PostModelCallInfo,
  PostModelCallVerdict,
  PreModelCallInfo,
  PreModelCallVerdict,
} from "../types/hooks.js";
import type { AssistantPart, Message } from "../types/messages.js";
import type { ModelRequest, ModelResponse, ModelStreamPart, Provider } from "../types/provider.js";
import type { ModelHookBy, ModelVerdictRecord } from "../types/step-record.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { textOf } from "../util/message-text.js";
import { zeroUsage } from "../util/usage.js";
import { loadMessageSchema, messageSchemaReady } from "./message-schema.js";
import { readMessages } from "./read-messages.js";
import type { RunContext } from "./run-context.js";

/**
 * The gate on the model side: the `preModelCall` chain on each request before it reaches the
 * provider, the `postModelCall` chain on each response before the loop acts on it. Same order,
 * verdict checks and fail-closed rules as the tool hooks (section 4): a hook that throws, or
 * answers with something that is not a verdict, rejects the run with `HookError`, and nothing
 * it guarded goes on. Only a loop with model hooks comes here (`modelGuard`).
 */

/** One step's model-side guard: what its hooks said, and what came of it. Made only for a loop with model hooks. */
export interface ModelGuard {
  /** Every verdict that changed something, in order (the step record's `modelVerdicts`). */
  readonly verdicts: ModelVerdictRecord[];
  /** A hook stopped the run: the step ends with it. */
  stop?: { reason?: string };
  /** A post-model hook replaced the response's text with this. */
  text?: string;
  /** The response's deltas, held until the post-model hooks pass it (only with post-model hooks). */
  held?: ModelStreamPart[];
}

const PRE_MODEL_KEYS: Readonly<Record<keyof PreModelCallVerdict, KeyType>> = {
  messages: "any",
  block: "boolean | string",
  stop: "boolean",
  stopReason: "string",
};

/** Other libraries' names for the verdict keys both phases share. */
const SHARED_ALIASES: Readonly<Record<string, string>> = {
  deny: "block",
  denied: "block",
  blocked: "block",
  reject: "block",
  tripwireTriggered: "block or stop",
  abort: "stop",
  halt: "stop",
  reason: "stopReason",
};

const PRE_MODEL_ALIASES: Readonly<Record<string, string>> = {
  ...SHARED_ALIASES,
  input: "messages",
  prompt: "messages",
  redact: "messages",
  text: "messages (a pre-model hook replaces the messages sent; a post-model hook replaces the response's text)",
  args: "messages (a model hook sees the request, not a tool call)",
  result: "block or stop",
  output: "block or stop",
};

const POST_MODEL_KEYS: Readonly<Record<keyof PostModelCallVerdict, KeyType>> = {
  text: "string",
  block: "boolean | string",
  stop: "boolean",
  stopReason: "string",
};

const POST_MODEL_ALIASES: Readonly<Record<string, string>> = {
  ...SHARED_ALIASES,
  output: "text",
  content: "text",
  response: "text",
  redact: "text",
  messages:
    "text (the request was sent: a post-model hook sees the response and may replace its text)",
  toolCalls: "block (a response's tool calls pass the gate: judge them with preToolCall)",
};

/** "pre-model hook 0 (preModelCall[0])": every error about a model hook names it so. */
const hookName = (by: ModelHookBy) => {
  const [side, index] = by.split(":");
  return `${side} hook ${index} (${side === "pre-model" ? "preModelCall" : "postModelCall"}[${index}])`;
};

/** The `HookError` of a model-side hook; `ends` says what did not happen. */
function hookError(by: ModelHookBy, problem: string, ends: string, cause?: unknown): HookError {
  const index = Number(by.slice(by.indexOf(":") + 1));
  const options = cause === undefined ? { by } : { by, cause };
  return new HookError(`${hookName(by)} ${problem}; ${ends}`, index, "", "", options);
}

/** Records a verdict in the step's guard and emits its `model-hook` event. */
function recorded<Deps>(
  run: RunContext<Deps>,
  step: number,
  guard: ModelGuard,
  verdict: ModelVerdictRecord,
): void {
  guard.verdicts.push(verdict);
  if (run.listening()) run.emit({ type: "model-hook", runId: run.runId, step, ...verdict });
}

/** A verdict record, with `reason` only when there is one. */
function verdictOf(
  phase: ModelVerdictRecord["phase"],
  by: ModelHookBy,
  verdict: ModelVerdictRecord["verdict"],
  reason: string | undefined,
): ModelVerdictRecord {
  return reason === undefined ? { phase, by, verdict } : { phase, by, verdict, reason };
}

/** The reason of a `block`: its text when given, else the default; `undefined` when it does not block. */
function blockReason(block: boolean | string | undefined, what: string): string | undefined {
  if (block === undefined || block === false) return undefined;
  return typeof block === "string" && block !== "" ? block : `the model ${what} was blocked`;
}

/**
 * Runs the `preModelCall` chain on a request about to be sent: each hook sees the messages as
 * the hooks before it left them (frozen). `true`: send it (with the hooks' final messages in
 * `request.messages`); `false`: a hook stopped the run (`guard.stop`). A block throws
 * `ModelCallBlockedError`; a hook that fails throws `HookError`. Synchronous while every hook is.
 */
export function guardRequest<Deps>(
  run: RunContext<Deps>,
  step: number,
  provider: Provider,
  request: ModelRequest,
  tools: readonly string[],
  guard: ModelGuard,
): MaybePromise<boolean> {
  const hooks = run.config.options.modelHooks!.pre;
  if (hooks.length === 0) return true;
  // A hook may answer with messages, checked against the state's schema, which loads first.
  if (!messageSchemaReady()) {
    return loadMessageSchema().then(() => {
      run.abort.throwIfAborted(); // no hook is asked after the run was aborted
      return guardRequest(run, step, provider, request, tools, guard);
    });
  }
  const state = {
    messages: freezeJson([...request.messages]) as readonly Message[],
    changed: false,
  };
  const names = Object.freeze([...tools]);
  const ask = (index: number): MaybePromise<boolean> => {
    for (; index < hooks.length; index++) {
      const by: ModelHookBy = `pre-model:${index}`;
      const info: PreModelCallInfo<Deps> = Object.freeze({
        runId: run.runId,
        step,
        provider: provider.name,
        model: provider.model,
        messages: state.messages,
        instructions: request.system,
        tools: names,
        deps: run.config.deps,
      });
      const hook = hooks[index]!;
      const verdict = askHook(
        () => hook(info),
        readPreModelVerdict,
        (error) => hookError(by, `threw: ${messageOf(error)}`, "the request was not sent", error),
        (problem) => hookError(by, problem, "the request was not sent"),
      );
      const next = index + 1;
      const applied = andThen(verdict, (answer) =>
        applyRequest(run, step, guard, by, state, answer),
      );
      if (isPromise(applied)) {
        return andThen(applied, (ended) => (ended === undefined ? ask(next) : ended));
      }
      if (applied !== undefined) return applied;
    }
    if (state.changed) request.messages = [...state.messages];
    return true;
  };
  return ask(0);
}

function readPreModelVerdict(answer: unknown): VerdictRead<PreModelCallVerdict> {
  return readVerdict(answer, PRE_MODEL_KEYS, PRE_MODEL_ALIASES);
}

function readPostModelVerdict(answer: unknown): VerdictRead<PostModelCallVerdict> {
  return readVerdict(answer, POST_MODEL_KEYS, POST_MODEL_ALIASES);
}

/** One pre-model verdict applied: `false` when it stops the run, `undefined` when the chain goes on. */
function applyRequest<Deps>(
  run: RunContext<Deps>,
  step: number,
  guard: ModelGuard,
  by: ModelHookBy,
  state: { messages: readonly Message[]; changed: boolean },
  verdict: PreModelCallVerdict | undefined,
): false | undefined {
  if (!verdict) return undefined;
  if (verdict.stop) {
    recorded(run, step, guard, verdictOf("request", by, "stop", verdict.stopReason));
    guard.stop = verdict.stopReason === undefined ? {} : { reason: verdict.stopReason };
    return false;
  }
  const reason = blockReason(verdict.block, "request");
  if (reason !== undefined) {
    recorded(run, step, guard, verdictOf("request", by, "block", reason));
    throw new ModelCallBlockedError("request", reason, step, by);
  }
  if (verdict.messages === undefined) return undefined;
  const read = readMessages(verdict.messages);
  if (!read.ok) {
    throw hookError(by, `returned messages that ${read.problem}`, "the request was not sent");
  }
  state.messages = read.value;
  state.changed = true;
  recorded(run, step, guard, verdictOf("request", by, "messages", undefined));
  return undefined;
}

/** What a step records of a request a pre-model hook stopped: no model call, so no parts and no usage. */
export function unsentResponse(): ModelResponse {
  return { parts: [], finishReason: "other", usage: zeroUsage() };
}

/**
 * Runs the `postModelCall` chain on a response, before the loop acts on it: each hook sees the
 * text as the hooks before it left it. Returns the response to act on: as it came, with its
 * text replaced (`guard.text`), or, when a hook stopped the run (`guard.stop`), withheld (no
 * parts; its usage and finish reason stay). A block throws `ModelCallBlockedError`; a hook that
 * fails throws `HookError`. Synchronous while every hook is.
 */
export function guardResponse<Deps>(
  run: RunContext<Deps>,
  step: number,
  provider: Provider,
  response: ModelResponse,
  guard: ModelGuard,
): MaybePromise<ModelResponse> {
  const hooks = run.config.options.modelHooks!.post;
  const { parts, finishReason, usage } = response;
  const toolCalls = parts.flatMap((part) =>
    part.type === "tool-call" ? [{ id: part.id, name: part.name, args: part.args }] : [],
  );
  const state = {
    text: textOf({ role: "assistant", parts }),
    toolCalls: freezeJson(toolCalls),
    usage: freezeJson({ ...usage }),
  };
  const ask = (index: number): MaybePromise<ModelResponse> => {
    for (; index < hooks.length; index++) {
      const by: ModelHookBy = `post-model:${index}`;
      const view: ModelResponseView = Object.freeze({
        text: state.text,
        toolCalls: state.toolCalls,
        finishReason,
        usage: state.usage,
      });
      const info: PostModelCallInfo<Deps> = Object.freeze({
        runId: run.runId,
        step,
        provider: provider.name,
        model: provider.model,
        response: view,
        deps: run.config.deps,
      });
      const hook = hooks[index]!;
      const ends = "nothing of the response was acted on";
      const verdict = askHook(
        () => hook(info),
        readPostModelVerdict,
        (error) => hookError(by, `threw: ${messageOf(error)}`, ends, error),
        (problem) => hookError(by, problem, ends),
      );
      const next = index + 1;
      const applied = andThen(verdict, (answer) =>
        applyResponse(run, step, guard, by, state, answer),
      );
      if (isPromise(applied)) {
        return andThen(applied, (ended) => (ended ? withheld(response) : ask(next)));
      }
      if (applied) return withheld(response);
    }
    if (guard.text === undefined) return response;
    return { parts: replaceText(parts, guard.text), finishReason, usage };
  };
  return ask(0);
}

/** One post-model verdict applied: `true` when it stops the run, `false` when the chain goes on. */
function applyResponse<Deps>(
  run: RunContext<Deps>,
  step: number,
  guard: ModelGuard,
  by: ModelHookBy,
  state: { text: string },
  verdict: PostModelCallVerdict | undefined,
): boolean {
  if (!verdict) return false;
  if (verdict.stop) {
    recorded(run, step, guard, verdictOf("response", by, "stop", verdict.stopReason));
    guard.stop = verdict.stopReason === undefined ? {} : { reason: verdict.stopReason };
    return true;
  }
  const reason = blockReason(verdict.block, "response");
  if (reason !== undefined) {
    recorded(run, step, guard, verdictOf("response", by, "block", reason));
    throw new ModelCallBlockedError("response", reason, step, by);
  }
  if (verdict.text === undefined) return false;
  state.text = verdict.text;
  guard.text = verdict.text;
  recorded(run, step, guard, verdictOf("response", by, "text", undefined));
  return false;
}

/** A stopped response as the loop keeps it: its usage and finish reason, none of its parts. */
function withheld(response: ModelResponse): ModelResponse {
  return { parts: [], finishReason: response.finishReason, usage: response.usage };
}

/**
 * A response's parts with their text replaced: one text part where the first one was (else
 * before the first tool call, else last), none when the text is "". Reasoning and tool calls stay.
 */
export function replaceText(parts: readonly AssistantPart[], text: string): AssistantPart[] {
  return replaced(
    parts,
    text,
    (part) => part.type === "text",
    (part) => part.type === "tool-call",
    (): AssistantPart => ({ type: "text", text }),
  );
}

/**
 * The held deltas of a response that passed the post-model hooks, as listeners get them: the
 * replaced text as one `text-delta` where the text began (`text` undefined: as they came).
 */
export function releasedParts(
  held: readonly ModelStreamPart[],
  text: string | undefined,
): readonly ModelStreamPart[] {
  if (text === undefined) return held;
  return replaced(
    held,
    text,
    (part) => part.type === "text-delta",
    (part) => part.type !== "reasoning-delta",
    (): ModelStreamPart => ({ type: "text-delta", text }),
  );
}

function replaced<T>(
  items: readonly T[],
  text: string,
  isText: (item: T) => boolean,
  isAfterText: (item: T) => boolean,
  make: () => T,
): T[] {
  const out: T[] = [];
  let placed = text === "";
  for (const item of items) {
    if (isText(item)) {
      if (!placed) out.push(make());
      placed = true;
      continue;
    }
    if (!placed && isAfterText(item)) {
      out.push(make());
      placed = true;
    }
    out.push(item);
  }
  if (!placed) out.push(make());
  return out;
}
