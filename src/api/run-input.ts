import { ResumeError } from "../errors.js";
import { checkSettings } from "../model/settings.js";
import { graphToolNames } from "../options/handoffs.js";
import type { ResolvedOptions } from "../options/loop-options.js";
import { checkStopNames, checkStopWhen, stopToolNames } from "../options/stop-conditions.js";
import { checkSignal, checkTimeout, wholeNumber } from "../options/value-checks.js";
import type { OutputOption, ResolvedOutput } from "../output/output-option.js";
import { resolveOutput } from "../output/output-option.js";
import { freshRun, type RunData } from "../state/snapshot.js";
import type { Message } from "../types/messages.js";
import type { RunState } from "../types/run-state.js";
import { storedMessage } from "../util/content-parts.js";
import { checkKeys } from "../util/option-keys.js";
import { checkLimits, mergeLimits } from "../util/usage-limits.js";
import { isPlainObject, kindOf } from "../util/values.js";
import type { ResumeOptions, RunOptions } from "./run-options.js";

/** The keys `run()` options know; anything else is a typo, refused. */
const RUN_KEYS = [
  "signal",
  "deps",
  "maxSteps",
  "runId",
  "instructions",
  "settings",
  "limits",
  "output",
  "stopWhen",
  "timeoutMs",
  "modelTimeoutMs",
] as const;
/** The keys `resume()` options know: a resumed run keeps its `maxSteps`, `runId` and `limits`. */
const RESUME_KEYS = [
  "signal",
  "deps",
  "instructions",
  "settings",
  "output",
  "stopWhen",
  "timeoutMs",
  "modelTimeoutMs",
] as const;

/** What other agent libraries call these options (the AI SDK's `abortSignal`, the Agents SDK's `context`). */
const RUN_ALIASES: Record<string, string> = {
  abortSignal: "signal",
  context: "deps",
  system: "instructions",
  systemPrompt: "instructions",
  prompt: "instructions",
  modelSettings: "settings",
  temperature: "settings",
  maxOutputTokens: "settings",
  maxTokens: "settings",
  maxTurns: "maxSteps",
  usageLimits: "limits",
  usageLimit: "limits",
  timeout: "timeoutMs",
};
/** The aliases of `RUN_ALIASES` that name a `resume()` option. */
const RESUME_ALIASES = Object.fromEntries(
  Object.entries(RUN_ALIASES).filter(([, ours]) =>
    (RESUME_KEYS as readonly string[]).includes(ours),
  ),
);

/**
 * A new run's data from `run()`'s input and options, checked: a typo'd option, a bad message
 * or a bad `runId` fails here, before the run starts.
 */
export function freshRunData<Deps>(
  loop: ResolvedOptions<Deps>,
  input: string | Message[],
  options: RunOptions<Deps>,
): RunData {
  checkKeys("run() options", options, RUN_KEYS, RUN_ALIASES);
  checkModelOptions("run()", options, loop);
  checkSignal("run()", options.signal);
  const runId = options.runId ?? crypto.randomUUID();
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError("run(): runId must be a non-empty string");
  }
  const maxSteps = wholeNumber("maxSteps", options.maxSteps ?? loop.maxSteps, 1, "run()");
  const limits = mergeLimits(loop.limits, checkLimits("run()", options.limits));
  return freshRun(runId, maxSteps, toMessages(input), limits);
}

/**
 * Checks `resume()`'s own arguments (the state or run id, the decisions, the options) before
 * anything is loaded: a forgotten `await`, a JSON text or a typo'd option is said so at once.
 */
export function checkResumeInput(
  given: RunState | string,
  decisions: unknown,
  options: ResumeOptions<any>,
  hasStore: boolean,
  loop: ResolvedOptions<any>,
): void {
  refuseUnawaited(given, decisions);
  if (isPlainObject(options) && Object.hasOwn(options, "limits")) {
    throw new TypeError(
      "resume() options: a resumed run keeps the limits it started with (its state holds them, and what was used); `limits` is an option of run() and of the loop",
    );
  }
  checkKeys("resume() options", options, RESUME_KEYS, RESUME_ALIASES);
  checkModelOptions("resume()", options, loop);
  checkSignal("resume()", options.signal);
  if (typeof given === "string" && given.trimStart().startsWith("{")) {
    throw new ResumeError(
      "resume() got a JSON text; pass the state itself: loop.resume(JSON.parse(saved), decisions)",
    );
  }
  if (typeof given === "string" && !hasStore) {
    throw new ResumeError(
      "resume(runId) loads the state from the loop's store, and this loop has none: give the loop a `store` (memoryRunStore(), fileRunStore(dir), …), or pass the state itself, which a loop trusts only when it is signed (`signingKey`, with `allowReplay: true` without a store) or `trustState: true`",
    );
  }
}

/** A run's own structured output, checked as the loop's is; else the loop's. */
export function outputOf(
  loop: ResolvedOptions<any>,
  given: OutputOption<any> | undefined,
): ResolvedOutput | undefined {
  if (given === undefined) return loop.output;
  const { provider, tools, maxRetries } = loop;
  return resolveOutput(given, provider, tools.names(), maxRetries, "run()");
}

/** A run's own `instructions`, `settings`, `stopWhen` and timeouts, checked as the loop's are. */
function checkModelOptions(
  where: string,
  options: RunOptions<any>,
  loop: ResolvedOptions<any>,
): void {
  const { instructions, settings } = options;
  if (instructions !== undefined && typeof instructions !== "string") {
    throw new TypeError(`${where}: \`instructions\` must be a string, got ${kindOf(instructions)}`);
  }
  checkSettings(where, settings);
  const stopWhen = checkStopWhen(where, options.stopWhen);
  // A run's conditions may name the loop's tools, the run's own final-answer tool and the
  // tools of the agents it hands off to. A loop's own were checked when it was built, unless a
  // handoff target was not built yet: they are checked here, then.
  const handed = loop.handoffs ? (graphToolNames(loop) ?? []) : [];
  const known = () => stopToolNames(loop.tools, outputOf(loop, options.output), handed);
  if (stopWhen) checkStopNames(where, stopWhen, known);
  else if (loop.handoffs) checkStopNames(where, loop.stopWhen, known);
  checkTimeout(where, "timeoutMs", options.timeoutMs);
  checkTimeout(where, "modelTimeoutMs", options.modelTimeoutMs);
}

/**
 * A promise given for the state or the decisions is a forgotten `await` (of a store's `get`, a
 * `run()`, a lookup of decisions): said so, before it reads as a state that is not one.
 */
function refuseUnawaited(given: unknown, decisions: unknown): void {
  if (isThenable(given)) {
    throw new ResumeError(
      "resume() got a promise, not a state: await it first, loop.resume(await saved, decisions) (from a run, resume result.state, or the run id with a store)",
    );
  }
  if (isThenable(decisions)) {
    throw new ResumeError(
      "resume() got a promise for the decisions: await it first, loop.resume(state, await decisions)",
    );
  }
  const result = given as { state?: unknown; steps?: unknown; status?: unknown } | null;
  if (isPlainObject(result) && isPlainObject(result.state) && Array.isArray(result.steps)) {
    throw new ResumeError(
      "resume() got a run's result, not its state: resume result.state (or, with a store, result.state.runId)",
    );
  }
}

/** Whether a value is a thenable (an object or a function with a `then` method). */
function isThenable(value: unknown): boolean {
  return (
    ((typeof value === "object" && value !== null) || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** The roles a message of `run()`'s transcript may have. */
const ROLES = new Set(["user", "assistant", "tool"]);

/** `run()`'s input as the run's first messages: a prompt, or a transcript whose every message has a role. */
function toMessages(input: string | Message[]): Message[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input)) {
    throw new TypeError("run(): input must be a prompt string or an array of messages");
  }
  input.forEach((message, index) => {
    if (!message || !ROLES.has(message.role)) {
      throw new TypeError(
        `run(): message ${index} has no valid role; use "user", "assistant" or "tool"`,
      );
    }
  });
  return input.map(storedMessage);
}
