import { EventStream, type RunEventStream } from "../loop/event-queue.js";
import { graphToolNames, readAgentsWith } from "../options/handoffs.js";
import type { AgentLoopBaseOptions, DepsOption } from "../options/loop-options.js";
import { resolveOptions } from "../options/resolve-options.js";
import { checkStopNames, stopToolNames } from "../options/stop-conditions.js";
import type { OutputOption } from "../output/output-option.js";
import { LocalLeases, localLeases } from "../state/local-leases.js";
import type { ApprovalDecisions } from "../state/resume/decisions.js";
import { type RunData, restore } from "../state/snapshot.js";
import type { InferArgs, InferOutput } from "../tools/schema.js";
import type { ListenerErrorHandler, LoopEventType, LoopListener } from "../types/events.js";
import type { Message } from "../types/messages.js";
import type { RunResult } from "../types/run-result.js";
import type { RunState } from "../types/run-state.js";
import type { StandardSchema } from "../types/schema.js";
import type { Tool } from "../types/tool.js";
import { agentOfState } from "./agent-of-state.js";
import type { AgentToolOptions, PromptInput } from "./agent-tool.js";
import { agentTool } from "./agent-tool.js";
import { checkEventType, EventBus } from "./event-bus.js";
import type { ResumeParts } from "./prepare-resume.js";
import { freshRunData } from "./run-input.js";
import type { ResumeOptions, RunOptions } from "./run-options.js";
import { type RunParts, startRun } from "./start-run.js";

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
  /** The loop's options, listeners and leases, and the states it resumed: what its runs share. */
  readonly #loop: RunParts<Deps> & ResumeParts<Deps>;

  static {
    readAgentsWith((value) =>
      // `?.`: a loop whose constructor has not finished has the field, not yet its value.
      typeof value === "object" && value !== null && #loop in value
        ? (value as AgentLoop<any, any>).#loop?.options
        : undefined,
    );
  }

  constructor(
    options: Omit<AgentLoopBaseOptions<Deps>, "output"> &
      DepsOption<Deps> & { output?: OutputOption<Output, Deps> | undefined },
  ) {
    const resolved = resolveOptions(options);
    // A handoff target given as a function may not be built yet: its tools are checked at run().
    const handed = graphToolNames(resolved, true);
    if (handed) {
      checkStopNames("AgentLoop", resolved.stopWhen, () =>
        stopToolNames(resolved.tools, resolved.output, handed),
      );
    }
    this.#loop = {
      options: resolved,
      bus: new EventBus(options.onEvent, options.onListenerError ?? defaultListenerError),
      // Without a store the leases are this loop's alone: no registry entry to look up.
      leases: options.store ? localLeases(options.store) : new LocalLeases(),
      resumed: undefined,
    };
  }

  /** The agent's name (the `name` option): what states and results record as the agent holding a run. */
  get name(): string | undefined {
    return this.#loop.options.name;
  }

  /** Listens to one event type of every run; returns the function that stops listening. */
  on<T extends LoopEventType>(type: T, listener: LoopListener<T>): () => void {
    checkEventType("on()", type);
    if (typeof listener !== "function") throw new TypeError("on(): give a listener function");
    return this.#loop.bus.on(type, listener);
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
      hasStore: this.#loop.options.store !== undefined,
      start: (input, parent, options, sink) => {
        const runId = parent && `${parent.runId}/${parent.toolCallId}`;
        const withId = runId === undefined ? options : { ...options, runId };
        const data = freshRunData(this.#loop.options, input, withId);
        return startRun(this.#loop, parent ? { ...data, parent } : data, options, undefined, sink)
          .result;
      },
      continue: (plan, options, sink) => {
        const data = restore(plan.state);
        const agent = agentOfState(this.#loop.options, plan.state);
        return startRun(this.#loop, data, options, { data, plan, lease: undefined, agent }, sink)
          .result;
      },
      plan: async (state, decisions) => {
        const { planResume } = await resumeChecks();
        return planResume(agentOfState(this.#loop.options, state), state, "parent", decisions);
      },
    });
  }

  /** Runs the agent on a prompt (or a whole transcript) until it ends. */
  async run<O = Output>(
    input: string | Message[],
    options: Omit<RunOptions<Deps>, "output"> & { output?: OutputOption<O, Deps> | undefined } = {},
  ): Promise<RunResult<O>> {
    const data = freshRunData(this.#loop.options, input, options);
    return startRun(this.#loop, data, options).result as Promise<RunResult<O>>;
  }

  /** Runs the agent, yielding every event; the last one is `run-finish`. Stopping early aborts the run. */
  stream(input: string | Message[], options: RunOptions<Deps> = {}): RunEventStream {
    let data: RunData;
    try {
      data = freshRunData(this.#loop.options, input, options);
    } catch (error) {
      return failing(error); // bad input still fails on the first next(), as with a generator
    }
    return new EventStream((sink) => startRun(this.#loop, data, options, undefined, sink));
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
    options: Omit<ResumeOptions<Deps>, "output"> & {
      output?: OutputOption<O, Deps> | undefined;
    } = {},
  ): Promise<RunResult<O>> {
    const { prepareResume } = await resumeParts();
    const prepared = await prepareResume(this.#loop, state, decisions, options);
    return startRun(this.#loop, prepared.data, options, prepared).result as Promise<RunResult<O>>;
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
    return new EventStream(async (sink) => {
      const { prepareResume } = await resumeParts();
      const prepared = await prepareResume(this.#loop, state, decisions, options);
      return startRun(this.#loop, prepared.data, options, prepared, sink);
    });
  }
}

/**
 * The resume's checks (the state's schema, trust, decisions), loaded on the first resume: a
 * process that only starts runs never loads them (a chunk of its own in the ESM build).
 */
const resumeParts = () => import("./prepare-resume.js");
const resumeChecks = () => import("../state/resume/plan.js");

/** An event stream that fails at once with the given error, on the first next(). */
function failing(error: unknown): RunEventStream {
  return new EventStream(() => {
    throw error;
  });
}
