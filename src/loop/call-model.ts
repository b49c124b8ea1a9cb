import { ModelTimeoutError, PolicyError } from "../errors.js";
import { responseToParts } from "../model/define-provider.js";
import { checkStreamPart } from "../model/provider-parts.js";
import { ResponseAssembler } from "../model/response-assembler.js";
import { mergeSettings } from "../model/settings.js";
import { promptedInstructions } from "../output/final-answer.js";
import { loadOutputStream, outputDeltas, outputStreamReady } from "../output/output-stream.js";
import type { LoopEvent } from "../types/events.js";
import type {
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Provider,
  ProviderCallOptions,
} from "../types/provider.js";
import { type AbortState, SIGNAL_FROM, withLazySignal } from "../util/lazy-signal.js";
import { andThen, isPromise, type MaybePromise } from "../util/maybe-promise.js";
import { raceSignal } from "../util/race-signal.js";
import { notInstalled } from "./feature-slot.js";
import { requestSent } from "./gate-calls.js";
import type { ModelGuard } from "./model-hooks.js";
import type { ToolsOfStep } from "./prepare-step.js";
import type { RunContext } from "./run-context.js";
import { modelAnswered } from "./run-record.js";

/**
 * Calls the model for one step with the run's messages and the step's tools (or what
 * `prepareStep` gave the step instead: instructions, settings, provider, messages): consumes
 * the provider's stream when it has one (a provider with only `generate` is replayed as one
 * burst of parts), yields the deltas as events, and returns the assembled response. The run's
 * usage and messages take the response in.
 */
export function callModel<Deps>(
  run: RunContext<Deps>,
  step: number,
  tools: ToolsOfStep<Deps>,
  guard?: ModelGuard,
): Promise<ModelResponse> {
  const { output } = run.config;
  const steering = tools.steering;
  const provider = steering?.provider ?? run.config.options.provider;
  if (output?.mode === "native" && !provider.supportsNativeOutput) {
    throw new PolicyError(
      `prepareStep returned provider "${provider.name}", which does not declare supportsNativeOutput, while the run's structured output mode is "native"; give a provider that supports it, or use output mode "tool" or "prompted"`,
      "prepareStep",
      undefined,
    );
  }
  if (output !== undefined && !outputStreamReady()) {
    // The first model call with structured output in this process: its stream reader loads.
    return loadOutputStream().then(() => {
      run.abort.throwIfAborted(); // nothing is sent after the run was aborted
      return callModel(run, step, tools, guard);
    });
  }
  const settings = mergeSettings(run.config.settings, steering?.settings);
  const given = steering?.instructions ?? run.config.instructions;
  const instructions = output?.mode === "prompted" ? promptedInstructions(given, output) : given;
  const messages = steering?.messages ?? run.messages;
  // `[...specs]`, not slice(): the specs are frozen, and slice() of a frozen array is slow.
  const request: ModelRequest = { messages: messages.slice(), tools: [...tools.specs] };
  if (instructions !== undefined) request.system = instructions;
  if (output?.mode === "native") {
    const { name, description, jsonSchema: schema } = output;
    request.responseFormat = { type: "json", schema, name, description };
  }
  if (tools.toolChoice !== undefined) request.toolChoice = tools.toolChoice;
  if (settings !== undefined) request.settings = settings;
  if (guard) return guardedCall(run, provider, request, step, tools.shownNames, guard);
  const taken = (response: ModelResponse): ModelResponse => {
    modelAnswered(run, step, response);
    return response;
  };
  return modelResponse(run, provider, request, step, taken, undefined);
}

/**
 * The model call of a loop with model hooks: the `preModelCall` chain on the request (a stop
 * sends nothing: the step records an empty response), the provider's response, then the
 * `postModelCall` chain on it before the run takes it in; the deltas held meanwhile reach
 * listeners only once the chain passed the response (a stopped or blocked one's never do).
 */
function guardedCall<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  tools: readonly string[],
  guard: ModelGuard,
): Promise<ModelResponse> {
  if (!modelHooks) throw notInstalled("the model hooks");
  const { guardRequest, guardResponse, releasedParts, unsentResponse } = modelHooks;
  const taken = (response: ModelResponse): MaybePromise<ModelResponse> => {
    if (!guard.held) {
      modelAnswered(run, step, response);
      return response;
    }
    return andThen(guardResponse(run, step, provider, response, guard), (guarded) => {
      run.abort.throwIfAborted();
      if (!guard.stop) {
        const emit = deltaEmitter(run, step, undefined);
        for (const part of releasedParts(guard.held!, guard.text)) emit(part);
      }
      modelAnswered(run, step, guarded);
      return guarded;
    });
  };
  const send = (sent: boolean): MaybePromise<ModelResponse> => {
    if (!sent) return unsentResponse();
    return modelResponse(run, provider, request, step, taken, guard.held);
  };
  const sent = guardRequest(run, step, provider, request, tools, guard);
  if (!isPromise(sent)) return Promise.resolve(send(sent));
  return Promise.resolve(sent).then((answer) => {
    run.abort.throwIfAborted();
    return send(answer);
  });
}

/** The model hooks' judges (`model-hooks.ts`), for a loop with model hooks. */
export type ModelHooks = Pick<
  typeof import("./model-hooks.js"),
  "guardRequest" | "guardResponse" | "releasedParts" | "unsentResponse"
>;

let modelHooks: ModelHooks | undefined;

/** Installs the model hooks' judges (`step-features.ts`, once loaded). */
export function installModelHooks(hooks: ModelHooks): void {
  modelHooks = hooks;
}

/**
 * The provider's response to one request, streamed or not, checked part by part, within the
 * run's `modelTimeoutMs` when it has one.
 */
function modelResponse<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  taken: (response: ModelResponse) => MaybePromise<ModelResponse>,
  held: ModelStreamPart[] | undefined,
): Promise<ModelResponse> {
  const ms = run.config.modelTimeoutMs;
  // No timeout: the response as it is (an async wrapper here would cost promises every step),
  // with the run's own signal, made only if the provider reads it.
  if (ms === undefined) {
    return response(run, provider, request, step, undefined, held, taken);
  }
  return timedResponse(run, provider, request, step, ms, held).then(taken);
}

/** The response within `ms`, else a `ModelTimeoutError`. */
async function timedResponse<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  ms: number,
  held: ModelStreamPart[] | undefined,
): Promise<ModelResponse> {
  // The call's own signal: the run's, and the timeout's, whose reason is a ModelTimeoutError.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new ModelTimeoutError(ms, provider.name, step)), ms);
  const signal = AbortSignal.any([run.abort.signal, timeout.signal]);
  try {
    return await raceSignal(response(run, provider, request, step, signal, held), signal);
  } catch (error) {
    // A provider that gave up on the aborted signal with an error of its own timed out all the same.
    throw timeout.signal.aborted && !run.abort.aborted ? timeout.signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The provider's response, checked and assembled, then handed to `taken`. Not an async
 * function: a whole (not streamed) answer costs one promise of the loop's, not three.
 * `signal` is the call's own (with a timeout); without one the provider gets the run's, made
 * when it reads `options.signal`, and the loop checks the run's abort itself.
 */
function response<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  signal: AbortSignal | undefined,
  held: ModelStreamPart[] | undefined,
  taken: (response: ModelResponse) => MaybePromise<ModelResponse> = (response) => response,
): Promise<ModelResponse> {
  const options: ProviderCallOptions =
    signal || !run.abort.handsOutLazily()
      ? { signal: signal ?? run.abort.signal, runId: run.runId, step }
      : withLazySignal({ runId: run.runId, step, [SIGNAL_FROM]: run.abort.view });
  const abort: AbortState = signal ?? run.abort;
  if (run.config.options.repairToolCall) requestSent(run, request);
  const assembler = new ResponseAssembler(provider.name);
  // Held parts (post-model hooks) are emitted later, through an emitter of their own.
  const outputOf =
    run.config.output && run.listening() && !held ? outputDeltas(run.config.output) : undefined;
  const emitDeltas = held
    ? (part: ModelStreamPart) => {
        held.push(part);
      }
    : deltaEmitter(run, step, outputOf);
  if (!provider.stream) {
    let answer: Promise<ModelResponse>;
    try {
      answer = provider.generate(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(answer).then((response) => {
      abort.throwIfAborted();
      for (const given of responseToParts(provider.name, response)) {
        const part = checkStreamPart(provider.name, given);
        assembler.add(part);
        emitDeltas(part);
      }
      return taken(assembler.close());
    });
  }
  return streamed(
    run,
    provider,
    request,
    step,
    abort,
    options,
    assembler,
    outputOf,
    emitDeltas,
    held !== undefined,
  ).then(taken);
}

/** A streamed response: each part checked, assembled and handed out as its delta event. */
async function streamed<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  abort: AbortState,
  options: ProviderCallOptions,
  assembler: ResponseAssembler,
  outputOf: ((part: ModelStreamPart) => unknown) | undefined,
  emitDeltas: (part: ModelStreamPart) => void,
  held: boolean,
): Promise<ModelResponse> {
  const parts = provider.stream!(request, options)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await parts.next();
      if (abort.aborted) throw abort.reason;
      if (next.done) break;
      const part = checkStreamPart(provider.name, next.value);
      assembler.add(part);
      // Text, the part most streamed, goes straight out as its event (unless held).
      if (part.type === "text-delta" && outputOf === undefined && !held) {
        if (run.listening())
          run.emit({ type: "text-delta", runId: run.runId, step, text: part.text });
      } else emitDeltas(part);
    }
    finished = true;
  } finally {
    // Abandoned early (abort, or the consumer stopped): let the provider close its stream.
    if (!finished) parts.return?.()?.catch?.(() => {});
  }
  return assembler.close();
}

/**
 * Hands a response's parts to the listeners as delta events (and, with structured output, as
 * `output-delta`s, read by `outputOf`; given `undefined`, an emitter makes its own when someone listens).
 */
function deltaEmitter<Deps>(
  run: RunContext<Deps>,
  step: number,
  outputOf: ((part: ModelStreamPart) => unknown) | undefined,
): (part: ModelStreamPart) => void {
  const output =
    outputOf ??
    (run.config.output && run.listening() ? outputDeltas(run.config.output) : undefined);
  return (part: ModelStreamPart) => {
    const event = run.listening() && deltaEvent(run.runId, step, part);
    if (event) run.emit(event);
    const value = output?.(part);
    if (value !== undefined)
      run.emit({ type: "output-delta", runId: run.runId, step, output: value });
  };
}

function deltaEvent(runId: string, step: number, part: ModelStreamPart): LoopEvent | undefined {
  switch (part.type) {
    case "text-delta":
      return { type: "text-delta", runId, step, text: part.text };
    case "reasoning-delta":
      return { type: "reasoning-delta", runId, step, text: part.text };
    case "tool-call-delta": {
      const event: LoopEvent = {
        type: "tool-call-delta",
        runId,
        step,
        index: part.index,
        argsDelta: part.argsDelta,
      };
      if (part.id !== undefined) event.id = part.id;
      if (part.name !== undefined) event.name = part.name;
      return event;
    }
    default:
      return undefined;
  }
}
