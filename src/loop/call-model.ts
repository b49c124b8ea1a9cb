import { ModelTimeoutError, PolicyError } from "../errors.js";
import { responseToParts } from "../model/define-provider.js";
import { checkStreamPart } from "../model/provider-parts.js";
import { ResponseAssembler } from "../model/response-assembler.js";
import { mergeSettings } from "../model/settings.js";
import { promptedInstructions } from "../output/final-answer.js";
import { outputDeltas } from "../output/output-deltas.js";
import type { LoopEvent } from "../types/events.js";
import type {
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Provider,
  ProviderCallOptions,
} from "../types/provider.js";
import { raceSignal } from "../util/race-signal.js";
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
  const taken = (response: ModelResponse): ModelResponse => {
    modelAnswered(run, step, response);
    return response;
  };
  return modelResponse(run, provider, request, step, taken);
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
  taken: (response: ModelResponse) => ModelResponse,
): Promise<ModelResponse> {
  const ms = run.config.modelTimeoutMs;
  // No timeout: the response as it is (an async wrapper here would cost promises every step).
  if (ms === undefined) return response(run, provider, request, step, run.abort.signal, taken);
  return timedResponse(run, provider, request, step, ms).then(taken);
}

/** The response within `ms`, else a `ModelTimeoutError`. */
async function timedResponse<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  ms: number,
): Promise<ModelResponse> {
  // The call's own signal: the run's, and the timeout's, whose reason is a ModelTimeoutError.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new ModelTimeoutError(ms, provider.name, step)), ms);
  const signal = AbortSignal.any([run.abort.signal, timeout.signal]);
  try {
    return await raceSignal(response(run, provider, request, step, signal), signal);
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
 */
function response<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  signal: AbortSignal,
  taken: (response: ModelResponse) => ModelResponse = (response) => response,
): Promise<ModelResponse> {
  const options = { signal, runId: run.runId, step };
  const assembler = new ResponseAssembler(provider.name);
  const outputOf =
    run.config.output && run.listening() ? outputDeltas(run.config.output) : undefined;
  const emitDeltas = (part: ModelStreamPart) => {
    const event = run.listening() && deltaEvent(run.runId, step, part);
    if (event) run.emit(event);
    const output = outputOf?.(part);
    if (output !== undefined) run.emit({ type: "output-delta", runId: run.runId, step, output });
  };
  if (!provider.stream) {
    let answer: Promise<ModelResponse>;
    try {
      answer = provider.generate(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(answer).then((response) => {
      signal.throwIfAborted();
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
    signal,
    options,
    assembler,
    outputOf,
    emitDeltas,
  ).then(taken);
}

/** A streamed response: each part checked, assembled and handed out as its delta event. */
async function streamed<Deps>(
  run: RunContext<Deps>,
  provider: Provider,
  request: ModelRequest,
  step: number,
  signal: AbortSignal,
  options: ProviderCallOptions,
  assembler: ResponseAssembler,
  outputOf: ((part: ModelStreamPart) => unknown) | undefined,
  emitDeltas: (part: ModelStreamPart) => void,
): Promise<ModelResponse> {
  const parts = provider.stream!(request, options)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await parts.next();
      if (signal.aborted) throw signal.reason;
      if (next.done) break;
      const part = checkStreamPart(provider.name, next.value);
      assembler.add(part);
      // Text, the part most streamed, goes straight out as its event.
      if (part.type === "text-delta" && outputOf === undefined) {
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
