import { ResumeError, RunTimeoutError, StoreError } from "../errors.js";
import { noteAbortedRun } from "../loop/aborted-runs.js";
import { EventStream, type RunEventStream } from "../loop/event-queue.js";
import { transcriptOnFailure } from "../loop/finish-step.js";
import { freezeEvent } from "../loop/freeze-event.js";
import { RunAbort } from "../loop/run-abort.js";
import type { RunContext } from "../loop/run-context.js";
import { runLoop } from "../loop/run-loop.js";
import { checkSettings, mergeSettings } from "../model/settings.js";
import type { AgentLoopOptions, ResolvedOptions } from "../options/loop-options.js";
import { checkSignal, checkTimeout, resolveOptions, wholeNumber } from "../options/loop-options.js";
import { checkStopWhen, type StopCondition } from "../options/stop-conditions.js";
import { storedAnswerProblem } from "../output/final-answer.js";
import type { OutputOption } from "../output/output-option.js";
import { resolveOutput } from "../output/output-option.js";
import { canonicalJson } from "../state/digest.js";
import { type LocalLeases, localLeases } from "../state/local-leases.js";
import { type RecentIds, recentIds } from "../state/recent-ids.js";
import type { ApprovalDecisions, ResumePlan, StateSource } from "../state/resume-plan.js";
import { planResume, subRunStateIds } from "../state/resume-plan.js";
import { keepLease } from "../state/run-lease.js";
import { isPaused, type RunState } from "../state/run-state.js";
import type { RunLease } from "../state/run-store.js";
import { runWrites } from "../state/run-writes.js";
import { freshRun, type RunData, restore } from "../state/snapshot.js";
import type { StoreCalls } from "../state/store-calls.js";
import type { InferArgs, InferOutput, StandardSchema } from "../tools/schema.js";
import type { Tool } from "../tools/tool.js";
import type {
  ListenerErrorHandler,
  LoopEvent,
  LoopEventType,
  LoopListener,
} from "../types/events.js";
import type { Message } from "../types/messages.js";
import type { ModelSettings } from "../types/provider.js";
import type { RunResult } from "../types/run-result.js";
import { storedMessage } from "../util/content-parts.js";
import { checkKeys, isPlainObject, kindOf } from "../util/option-keys.js";
import type { UsageLimits } from "../util/usage-limits.js";
import { checkLimits, mergeLimits } from "../util/usage-limits.js";
import type { AgentToolOptions, PromptInput } from "./agent-tool.js";
import { agentTool } from "./agent-tool.js";
import { checkEventType, EventBus } from "./event-bus.js";

/** Per-run options. */
export interface RunOptions<Deps = unknown> {
  /** Aborts this run; the run rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Replaces the loop's `deps` for this run. */
  deps?: Deps | undefined;
  /** Replaces the loop's `maxSteps` for this run. */
  maxSteps?: number | undefined;
  /** Replaces the loop's `instructions` (the system prompt) for this run. */
  instructions?: string | undefined;
  /** Settings for this run, over the loop's: a key given here wins, the loop's others stay. */
  settings?: ModelSettings | undefined;
  /** Replaces the loop's structured `output` for this run (`result.output` is typed from it). */
  output?: OutputOption<any> | undefined;
  /**
   * Usage limits for this run, over the loop's, key by key: `{ toolCalls: 3 }` changes that
   * limit and keeps the loop's others. They hold across `resume()`: the state carries them.
   */
  limits?: UsageLimits | undefined;
  /**
   * The run's id (default: a random UUID); a `RunStore` keeps the run's states under it. With
   * a store, a second live run with the same id is refused (`StoreError`).
   */
  runId?: string | undefined;
  /** Replaces the loop's `stopWhen` conditions for this run. */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /** Replaces the loop's `timeoutMs` (the whole run, in milliseconds) for this run. */
  timeoutMs?: number | undefined;
  /** Replaces the loop's `modelTimeoutMs` (each model call, in milliseconds) for this run. */
  modelTimeoutMs?: number | undefined;
}

/**
 * Per-resume options; steps, usage, `maxSteps`, `runId` and the usage limits (with what was
 * used of them) carry over from the state. A state
 * does not hold `deps`, `instructions` or `settings`: the resumed run uses the loop's, unless
 * given here again (as `run()` was given them).
 */
export interface ResumeOptions<Deps = unknown> {
  signal?: AbortSignal | undefined;
  deps?: Deps | undefined;
  /** Replaces the loop's `instructions` for the rest of the run. */
  instructions?: string | undefined;
  /** Settings for the rest of the run, over the loop's, key by key. */
  settings?: ModelSettings | undefined;
  /** The structured `output` of the rest of the run, when `run()` was given its own (a state does not hold it). */
  output?: OutputOption<any> | undefined;
  /** The `stopWhen` conditions of the rest of the run (a state does not hold them). */
  stopWhen?: StopCondition<Deps>[] | undefined;
  /** Milliseconds the resumed run may take, instead of the loop's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Milliseconds each model call may take, instead of the loop's `modelTimeoutMs`. */
  modelTimeoutMs?: number | undefined;
}

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
const RESUME_ALIASES = Object.fromEntries(
  Object.entries(RUN_ALIASES).filter(([, ours]) =>
    (RESUME_KEYS as readonly string[]).includes(ours),
  ),
);

/** How many resumed state ids a loop without a store remembers to refuse a second resume. */
const REMEMBERED_RESUMES = 10_000;

/** A checked resume, ready to start: the run's data, its checked plan, its lease. */
interface PreparedResume {
  data: RunData;
  plan: ResumePlan;
  lease: RunLease | undefined;
}

const defaultListenerError: ListenerErrorHandler = (error, event) => {
  console.error(`tollgate: a listener for "${event.type}" failed:`, error);
};

/**
 * The agent loop. Every tool call the model asks for passes the gate (callable? → args →
 * hooks → policy) before it may run. `run()` resolves with a `RunResult`; `stream()` yields
 * the same run's events as they happen; a paused run continues with `resume()`.
 *
 * @example
 * const loop = new AgentLoop({ provider, tools: [getWeather] });
 * const { text } = await loop.run("What's the weather in Oslo?");
 */
export class AgentLoop<Deps = unknown, Output = unknown> {
  readonly #options: ResolvedOptions<Deps>;
  readonly #bus: EventBus;
  /**
   * States this loop resumed, when it has no store (bounded: the latest 10,000); made on the
   * first resume, as most loops never resume.
   */
  #resumed: RecentIds | undefined;
  /** The leases this process holds in the loop's store, shared with every loop over that store. */
  readonly #leases: LocalLeases;

  constructor(options: AgentLoopOptions<Deps> & { output?: OutputOption<Output> | undefined }) {
    this.#options = resolveOptions(options);
    this.#bus = new EventBus(options.onEvent, options.onListenerError ?? defaultListenerError);
    this.#leases = localLeases(options.store ?? this);
  }

  /** Listens to one event type of every run; returns the function that stops listening. */
  on<T extends LoopEventType>(type: T, listener: LoopListener<T>): () => void {
    checkEventType("on()", type);
    if (typeof listener !== "function") throw new TypeError("on(): give a listener function");
    return this.#bus.on(type, listener);
  }

  /**
   * This loop as a tool of another loop: a sub-agent. The parent's gate decides whether it
   * runs (hooks, policy, `needsApproval`); this loop's gate decides its own tools. Its events
   * reach the parent's listeners as `sub-run` events, its usage adds up into the parent's, and
   * the parent's abort aborts it. Its final text is the call's output; a failure is the call's
   * error result. When it pauses for approval, the parent pauses too, listing its pending
   * calls; one `resume()` of the parent's state continues both. The input is `{ prompt }`
   * unless `input` (with `prompt(args)`, else the args as JSON) says otherwise.
   *
   * @example
   * const writer = new AgentLoop({ provider, tools: [writeFile] });
   * const research = new AgentLoop({
   *   provider,
   *   tools: [search, writer.asTool({ name: "writer", description: "Writes a file" })],
   * });
   */
  asTool<ParentDeps = unknown, Schema extends StandardSchema = PromptInput>(
    options: AgentToolOptions<Deps, ParentDeps, Schema>,
  ): Tool<ParentDeps, InferOutput<Schema>, InferArgs<Schema>> {
    return agentTool(options, {
      hasStore: this.#options.store !== undefined,
      start: (input, parent, options, sink) => {
        const runId = parent && `${parent.runId}/${parent.toolCallId}`;
        const data = this.#fresh(input, runId === undefined ? options : { ...options, runId });
        return this.#begin(parent ? { ...data, parent } : data, options, undefined, sink).result;
      },
      continue: (plan, options, sink) => {
        const data = restore(plan.state);
        return this.#begin(data, options, { data, plan, lease: undefined }, sink).result;
      },
      plan: (state, decisions) => planResume(this.#options, state, "parent", decisions),
    });
  }

  /** Runs the agent on a prompt (or a whole transcript) until it ends. */
  async run<O = Output>(
    input: string | Message[],
    options: RunOptions<Deps> & { output?: OutputOption<O> | undefined } = {},
  ): Promise<RunResult<O>> {
    return this.#begin(this.#fresh(input, options), options).result as Promise<RunResult<O>>;
  }

  /** Runs the agent, yielding every event; the last one is `run-finish`. Stopping early aborts the run. */
  stream(input: string | Message[], options: RunOptions<Deps> = {}): RunEventStream {
    let data: RunData;
    try {
      data = this.#fresh(input, options);
    } catch (error) {
      return failing(error); // bad input still fails on the first next(), as with a generator
    }
    return this.#events((sink) => this.#begin(data, options, undefined, sink));
  }

  /**
   * Continues a paused run (or a crashed one, from a `RunStore` checkpoint) with a decision
   * for every pending call. Give the state itself, or, when the loop has a store, the run's
   * id (the store's own copy is then resumed). Rejects with `ResumeError`, running nothing,
   * when the state cannot be trusted or the state or the decisions do not fit; a state is
   * resumed at most once.
   *
   * @example
   * const result = await loop.resume(runId, { [id]: { approve: true, digest } });
   */
  async resume<O = Output>(
    state: RunState | string,
    decisions: ApprovalDecisions = {},
    options: ResumeOptions<Deps> & { output?: OutputOption<O> | undefined } = {},
  ): Promise<RunResult<O>> {
    const prepared = await this.#prepareResume(state, decisions, options);
    return this.#begin(prepared.data, options, prepared).result as Promise<RunResult<O>>;
  }

  /**
   * `resume()`, yielding every event as it happens. The checks `resume()` makes come first, on
   * the first `next()` or on `ready()`: await `ready()` to learn, before answering a request,
   * whether the resume may run (a `ResumeError` for a double submit or a stale state, with
   * nothing run and the state not used up).
   *
   * @example
   * const events = loop.resumeStream(runId, decisions);
   * try {
   *   await events.ready();
   * } catch (error) {
   *   if (error instanceof ResumeError) return Response.json({ error: error.message }, { status: 409 });
   *   throw error;
   * }
   * return toEventStream(events);
   */
  resumeStream(
    state: RunState | string,
    decisions: ApprovalDecisions = {},
    options: ResumeOptions<Deps> = {},
  ): RunEventStream {
    return this.#events(async (sink) => {
      const prepared = await this.#prepareResume(state, decisions, options);
      return this.#begin(prepared.data, options, prepared, sink);
    });
  }

  #fresh(input: string | Message[], options: RunOptions<Deps>): RunData {
    checkKeys("run() options", options, RUN_KEYS, RUN_ALIASES);
    checkModelOptions("run()", options);
    checkSignal("run()", options.signal);
    const runId = options.runId ?? crypto.randomUUID();
    if (typeof runId !== "string" || runId === "") {
      throw new TypeError("run(): runId must be a non-empty string");
    }
    const maxSteps = wholeNumber(
      "maxSteps",
      options.maxSteps ?? this.#options.maxSteps,
      1,
      "run()",
    );
    const limits = mergeLimits(this.#options.limits, checkLimits("run()", options.limits));
    return freshRun(runId, maxSteps, toMessages(input), limits);
  }

  /**
   * Loads (from the store, for a run id) and checks the state and the decisions, takes the
   * run's lease, then claims the state: nothing has run when this throws, and a failed check
   * does not use the state up.
   */
  async #prepareResume(
    given: RunState | string,
    decisions: ApprovalDecisions,
    options: ResumeOptions<Deps>,
  ): Promise<PreparedResume> {
    refuseUnawaited(given, decisions);
    if (isPlainObject(options) && Object.hasOwn(options, "limits")) {
      throw new TypeError(
        "resume() options: a resumed run keeps the limits it started with (its state holds them, and what was used); `limits` is an option of run() and of the loop",
      );
    }
    checkKeys("resume() options", options, RESUME_KEYS, RESUME_ALIASES);
    checkModelOptions("resume()", options);
    checkSignal("resume()", options.signal);
    const { store } = this.#options;
    const runId = typeof given === "string" ? given : (given as { runId?: unknown })?.runId;
    if (typeof given === "string" && given.trimStart().startsWith("{")) {
      throw new ResumeError(
        "resume() got a JSON text; pass the state itself: loop.resume(JSON.parse(saved), decisions)",
      );
    }
    if (typeof given === "string" && !store) {
      throw new ResumeError(
        "resume(runId) loads the state from the loop's store, and this loop has none; pass the state itself",
      );
    }
    const lease =
      store && typeof runId === "string" ? await takeRun(store, runId, this.#leases) : undefined;
    try {
      const { state, source } = await this.#stateToResume(given, store);
      // A final-answer call ("tool" mode) a hook or the policy held for approval resumes too.
      const outputTool = this.#outputOf(options.output)?.tool;
      const settings = outputTool
        ? { ...this.#options, tools: this.#options.tools.with(outputTool) }
        : this.#options;
      const plan = await planResume(settings, state, source, decisions);
      const answerProblem = await storedAnswerProblem(plan.state, this.#outputOf(options.output));
      if (answerProblem !== undefined) {
        throw new ResumeError(
          `the paused step already took a final answer that the output schema of this resume rejects (${answerProblem}); resume with the output the run was started with`,
        );
      }
      this.#options.signal?.throwIfAborted();
      options.signal?.throwIfAborted();
      await this.#claim(plan.state.stateId);
      // The paused sub-runs it holds are continued once, too.
      for (const stateId of subRunStateIds(plan)) await this.#claim(stateId);
      return { data: restore(plan.state, this.#options.limits), plan, lease };
    } catch (error) {
      if (store && lease) await this.#giveBack(store, lease);
      throw error;
    }
  }

  /** Gives a lease back (a failed release only means it runs out on its own). */
  async #giveBack(store: StoreCalls, lease: RunLease): Promise<void> {
    this.#leases.drop(lease.runId);
    await store.release(lease).catch(() => {});
  }

  /**
   * The state a resume starts from. With a store, the store's own copy: for a run id, and for
   * a state given by value when the store holds that very state (a store holding a later
   * state of the run refuses the stale one).
   */
  async #stateToResume(
    given: RunState | string,
    store: StoreCalls | undefined,
  ): Promise<{ state: unknown; source: StateSource }> {
    if (!store) return { state: given, source: "value" };
    if (typeof given === "string") {
      const stored = await store.get(given);
      if (!stored) throw new ResumeError(`the store holds no state for run ${given}`);
      return { state: stored, source: "store" };
    }
    const runId = (given as { runId?: unknown } | null)?.runId;
    if (typeof runId !== "string") return { state: given, source: "value" };
    const stored = await store.get(runId);
    if (!stored) return { state: given, source: "foreign" };
    if (stored.stateId !== (given as { stateId?: unknown }).stateId) {
      throw new ResumeError(
        `the store holds another state of run ${runId} than the one given (it was resumed or went on since); resume the store's copy with loop.resume("${runId}", decisions)`,
      );
    }
    if (!sameData(given, stored)) {
      // The store's copy is what would run: a given copy that differs (an edited `pending`, an
      // edited step) shows its caller, or a human, something else. Refused, not replaced.
      throw new ResumeError(
        `the state given for run ${runId} is not the one the store holds under its stateId: it was changed after it was written, so it shows something other than what would run; nothing ran. Resume the store's copy with loop.resume("${runId}", decisions)`,
      );
    }
    return { state: stored, source: "store" };
  }

  /** A run's own structured output, checked as the loop's is; else the loop's. */
  #outputOf(given: OutputOption<any> | undefined) {
    if (given === undefined) return this.#options.output;
    const { provider, tools, maxRetries } = this.#options;
    return resolveOutput(given, provider, tools.names(), maxRetries, "run()");
  }

  /** Claims a state for this resume, in the store when there is one; a second claim fails. */
  async #claim(stateId: string): Promise<void> {
    const already = () =>
      new ResumeError(`state ${stateId} was already resumed; a state resumes once`);
    const { store } = this.#options;
    if (store) {
      if (!(await store.claim(stateId))) throw already();
      return;
    }
    this.#resumed ??= recentIds(REMEMBERED_RESUMES);
    if (!this.#resumed.add(stateId)) throw already();
  }

  /**
   * Starts a run: every event goes to the listeners and, when given, to `sink`. The run's
   * signal aborts when the caller's does, when `abandon()` is called before it ends, or when
   * the run loses its lease. With a store, the run holds the run id's lease while it runs.
   */
  #begin(
    data: RunData,
    options: RunOptions<Deps> | ResumeOptions<Deps>,
    resumed?: PreparedResume,
    sink?: (event: LoopEvent) => void,
  ): Started {
    const abort = new RunAbort([this.#options.signal, options.signal]);
    const abandon = () => abort.abort(new DOMException("the run was abandoned", "AbortError"));
    const { store } = this.#options;
    if (abort.aborted) {
      if (store && resumed?.lease) void this.#giveBack(store, resumed.lease);
      return { result: Promise.reject(abort.reason), abandon };
    }
    const bus = this.#bus;
    // Listeners get frozen events: nothing they do changes what runs or what is stored.
    const deliver = sink
      ? (event: LoopEvent) => {
          const frozen = freezeEvent(event);
          bus.emit(frozen);
          sink(frozen);
        }
      : (event: LoopEvent) => {
          if (bus.listening) bus.emit(freezeEvent(event));
        };
    const writes = runWrites(() => run, this.#options);
    // Every field written out, in one order: a spread here made each run's context a slow
    // object, and the loop reads it at every turn.
    const run: RunContext<Deps> = {
      runId: data.runId,
      maxSteps: data.maxSteps,
      messages: data.messages,
      steps: data.steps,
      usage: data.usage,
      retries: data.retries,
      unavailableCalls: data.unavailableCalls,
      executed: data.executed,
      denied: data.denied,
      remembered: data.remembered,
      limits: data.limits,
      callCounts: data.callCounts,
      openStep: data.openStep,
      parent: data.parent,
      options: this.#options,
      deps: options.deps === undefined ? this.#options.deps : options.deps,
      instructions: options.instructions ?? this.#options.instructions,
      settings: mergeSettings(this.#options.settings, options.settings),
      output: this.#outputOf(options.output),
      stopWhen: checkStopWhen<Deps>("run()", options.stopWhen) ?? this.#options.stopWhen,
      modelTimeoutMs: options.modelTimeoutMs ?? this.#options.modelTimeoutMs,
      abort,
      lease: resumed?.lease,
      // After an abort the run has rejected: whatever is still settling emits nothing.
      emit: (event) => {
        if (!abort.aborted) deliver(event);
      },
      // Functions, not getters: an object literal with a getter takes V8's slow path.
      listening: () => sink !== undefined || bus.listening,
      checkpoint: writes.checkpoint,
      write: writes.write,
    };
    // The run's timeout aborts it as its signal would, with a RunTimeoutError as the reason.
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            const reason = new RunTimeoutError(timeoutMs);
            reason.messages = transcriptOnFailure(run, reason);
            abort.abort(reason);
          }, timeoutMs);
    let lostLease = false;
    const start = store
      ? () =>
          leased(
            run,
            { store, leases: this.#leases },
            (error) => {
              lostLease = true;
              error.messages ??= transcriptOnFailure(run, error);
              abort.abort(error);
            },
            () => runLoop(run, resumed?.plan),
          )
      : () => runLoop(run, resumed?.plan);
    // The one place the run races its signal: it rejects the moment the signal aborts.
    const result = abort.race(start()).then(
      (ended) => {
        clearTimeout(timer);
        abort.detach();
        return ended;
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (abort.aborted && error === abort.reason) {
          noteAbortedRun(run, error);
          // Not given back: its tools may still run, so the lease runs out on its own.
          if (run.lease && !lostLease) this.#leases.leave(run.lease);
        }
        abandon();
        // The run's last event, past the abort that silences the rest: listeners end what they opened.
        if (bus.listening) bus.emit(freezeEvent({ type: "run-error", runId: run.runId, error }));
        throw error;
      },
    );
    return { result, abandon };
  }

  /**
   * The events of a run as an async generator (`EventStream`): the run starts on the first
   * `next()`, goes on at its own pace and its events queue up for the reader; the run's error
   * is thrown after the events before it. A reader that stops early abandons the run (its
   * signal aborts).
   */
  #events(begin: (sink: (event: LoopEvent) => void) => Started | Promise<Started>): RunEventStream {
    return new EventStream(begin);
  }
}

/** An event stream that fails at once with the given error, on the first next(). */
function failing(error: unknown): RunEventStream {
  return new EventStream(() => {
    throw error;
  });
}

/** A run that has started: its result, and how to give it up. */
interface Started {
  result: Promise<RunResult>;
  abandon(): void;
}

/**
 * Takes a run id's lease for a resume; a live lease means the run is still running: in this
 * process (a second resume of it, such as a double submit), or elsewhere.
 */
async function takeRun(store: StoreCalls, runId: string, leases: LocalLeases): Promise<RunLease> {
  const lease = await store.acquire(runId);
  if (lease) {
    leases.hold(runId);
    return lease;
  }
  switch (leases.holder(runId)) {
    case "running":
      throw new ResumeError(
        `run ${runId} is still running in this process (a resume or run of it started here has not ended), so this resume was refused and nothing ran; the first goes on. A double submit? Answer the second request with a conflict (HTTP 409); once the run pauses again, decide its new pending calls`,
        { retryable: true },
      );
    case "aborted":
      throw new ResumeError(
        `run ${runId} is still running in this process: it was aborted here, and a tool it started may still run until its lease runs out; resume it from its checkpoint then`,
        { retryable: true },
      );
    default:
      throw new ResumeError(
        `run ${runId} is still running: another process holds its lease and renews it while it runs; resume it once it has paused, or once its lease has run out after a crash`,
        { retryable: true },
      );
  }
}

/**
 * A new `run()` must not write over a run that waits for approval or that a crash left
 * unfinished: its pending approval would then apply to the new run's calls. Refused with a
 * `StoreError` (the lease just taken is given back).
 */
async function refuseToReplace(store: StoreCalls, lease: RunLease): Promise<void> {
  const stored = await store.get(lease.runId);
  if (!isPaused(stored?.status) && stored?.status !== "running") return;
  await store.release(lease);
  const what =
    stored.status === "needs_approval"
      ? "is paused, waiting for approval"
      : stored.status === "needs_results"
        ? "is paused, waiting for client-side tools' results"
        : "has an unfinished checkpoint (its process stopped)";
  throw new StoreError(
    `run ${lease.runId} ${what}; resume it with loop.resume("${lease.runId}", decisions), or give the new run another runId`,
    "get",
  );
}

/**
 * Runs `body` under the run's lease: takes it first when the run has none yet (`run()`; two
 * live runs never share a run id), renews it meanwhile, and gives it up once the run ended
 * (not after an abort: its tools may still be running, so the lease runs out on its own).
 */
async function leased<Deps>(
  run: RunContext<Deps>,
  { store, leases }: { store: StoreCalls; leases: LocalLeases },
  lost: (error: StoreError) => void,
  body: () => Promise<RunResult>,
): Promise<RunResult> {
  if (!run.lease) {
    try {
      run.lease = await takeNewRun(store, run.runId);
    } catch (error) {
      if (error instanceof StoreError) error.messages = run.messages.slice();
      throw error;
    }
    leases.hold(run.runId);
  }
  const lease = run.lease;
  const stop = keepLease(store, lease, run.abort.signal, (error) => {
    leases.drop(lease.runId);
    lost(error);
  });
  try {
    const result = await body();
    stop();
    // The run ended and its state is written: a failed release only means the lease runs out
    // on its own, so it does not turn a finished run into a failure (which would invite a rerun).
    leases.drop(lease.runId);
    await store.release(lease).catch(() => {});
    return result;
  } catch (error) {
    stop();
    if (!run.abort.aborted) {
      leases.drop(lease.runId);
      await store.release(lease).catch(() => {});
    } else if (leases.holder(lease.runId) === "running") {
      leases.leave(lease); // aborted before it held the lease: it runs out from now
    }
    throw error;
  }
}

/** Takes a new run's lease; refused while another run holds it, or the store holds a paused run of the id. */
async function takeNewRun(store: StoreCalls, runId: string): Promise<RunLease> {
  const lease = await store.acquire(runId);
  if (!lease) {
    throw new StoreError(
      `run ${runId} is already running (another run holds its lease); two live runs never share a runId`,
      "acquire",
      { retryable: true },
    );
  }
  await refuseToReplace(store, lease);
  return lease;
}

/** A run's own `instructions`, `settings`, `stopWhen` and timeouts, checked as the loop's are. */
function checkModelOptions(where: string, options: RunOptions<any>): void {
  const { instructions, settings } = options;
  if (instructions !== undefined && typeof instructions !== "string") {
    throw new TypeError(`${where}: \`instructions\` must be a string, got ${kindOf(instructions)}`);
  }
  checkSettings(where, settings);
  checkStopWhen(where, options.stopWhen);
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

function isThenable(value: unknown): boolean {
  return (
    ((typeof value === "object" && value !== null) || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

const ROLES = new Set(["user", "assistant", "tool"]);

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

/** Whether two values are the same JSON data (key order aside); a value JSON cannot write is not. */
function sameData(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
