import * as restate from "@restatedev/restate-sdk";
import {
  AgentLoop,
  type AgentLoopOptions,
  type ApprovalDecisions,
  type LoopEvent,
  type Message,
  ResumeError,
  type RunResult,
} from "tollgate";
import { checkDecideArgs, checkDurableOptions, checkWaitOptions } from "../util/durable-options.js";
import {
  checkDecisions,
  type DecideOutcome,
  type DurableRuns,
  decisionKey,
  keyOfMessage,
  type Pause,
  pauseOf,
  type Refusal,
  refusalOf,
} from "../util/durable-pauses.js";
import { type RecordStep, recordedLoopOptions } from "../util/durable-steps.js";
import { kindOf } from "../util/values.js";

/** Options of `restateAgent`. */
export interface RestateAgentOptions<Deps = unknown> {
  /**
   * The agent's name: its virtual object is `tollgate.run.<name>`, and the endpoint that serves
   * it (every process of the deployment) binds the same object.
   */
  name: string;
  /**
   * The loop's options, as `new AgentLoop()` takes them, without `store`, `signingKey`,
   * `trustState` or `allowReplay`: Restate keeps the run (its journal, its pauses). Tools run
   * one at a time (`maxParallelToolCalls: 1`), so a replay journals and reads in the same order.
   */
  loop: AgentLoopOptions<Deps>;
  /**
   * How long a pause waits for its decisions (default 24 hours). Past it, each waiting call is
   * refused ("no decision within …") and the run goes on: the model reads why.
   */
  approvalTimeoutMs?: number | undefined;
  /**
   * Each event of each run, with its sequence number in the run. Every attempt of a run (after
   * a crash, or once a suspended run is woken) replays its journal and emits the replayed
   * events again, with the same numbers: keep the last number seen per run and drop the ones at
   * or below it, and a listener sees each event once.
   */
  onEvent?: ((event: LoopEvent, seq: number) => void) | undefined;
}

/** What a run waits for, as `waiting()` gives it: decide it with `decide()`. */
export type WaitingRun = Pause;

/**
 * A tollgate agent's client, talking to Restate's ingress. `decide()` resolves the pause's
 * awakeable; `result()` attaches to the run's invocation.
 */
export interface RestateAgentClient extends DurableRuns<ApprovalDecisions> {
  /**
   * Starts the run `runId` (ingress `/send`, idempotency key `runId`); resolves once Restate
   * accepted it. Starting the same `runId` again starts nothing: Restate answers with the first
   * invocation for as long as it keeps idempotency keys (24 hours by default), and after that
   * the run's object state holds its result, which a second invocation returns.
   */
  start(runId: string, input: string | Message[]): Promise<void>;
}

/** A tollgate agent whose runs are Restate virtual objects, one per run id. */
export interface RestateAgent {
  /** The virtual object to bind to the endpoint (`createEndpointHandler({ services: [object] })`). */
  object: restate.VirtualObjectDefinition<string, unknown>;
  /** The client of the agent's runs, through Restate's ingress at `ingressUrl`. */
  client(ingressUrl: string): RestateAgentClient;
}

/** What the run keeps in its object state under `waiting` while it waits. */
interface Waiting extends Pause {
  /** The awakeable the decisions resolve. */
  awakeable: string;
}

/** The decision message a run took for a pause, kept in its object state under `taken`. */
interface Taken {
  pause: number;
  key: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the client looks at a run's object state while it waits for a change. */
const POLL_MS = 25;
/** How long `decide()` waits to see its message taken. */
const DECIDE_WAIT_MS = 10_000;

/**
 * A tollgate agent run as a Restate virtual object (`@restatedev/restate-sdk`, on the
 * restate-server you run): the object key is the run id and one exclusive handler per key runs
 * it, each model call and each tool execution a `ctx.run`, and a pause waits on an awakeable for
 * decisions sent with `decide()`. An endpoint process that dies mid-run is retried by Restate
 * on a live one: settled calls keep their journaled results, an idempotent tool that was running
 * runs again, and any other that was running is "outcome unknown", never run twice. Serve the
 * endpoint over HTTP/2 (`http2.createServer(createEndpointHandler(…))`): over HTTP/1.1 each
 * `ctx.run` ends an attempt and every non-idempotent call would read as "outcome unknown".
 *
 * @example
 * const agent = restateAgent({ name: "support", loop: { provider, tools: [refund] } });
 * http2.createServer(createEndpointHandler({ services: [agent.object] })).listen(9080, "127.0.0.1");
 * await agent.client("http://127.0.0.1:8080").start("ticket-42", "Refund order 7");
 */
export function restateAgent<Deps = unknown>(options: RestateAgentOptions<Deps>): RestateAgent {
  checkDurableOptions(
    "restateAgent()",
    options,
    "Restate's to keep: the run's virtual object holds its journal and pauses",
  );
  const { onEvent } = options;
  const service = `tollgate.run.${options.name}`;
  const timeoutMs = options.approvalTimeoutMs ?? DAY_MS;
  const object = restate.object({
    name: service,
    handlers: {
      run: async (ctx: restate.ObjectContext, request: { input: string | Message[] }) => {
        // A run id started again once Restate forgot its idempotency key: the run has ended.
        const ended = await ctx.get<RunResult>("result");
        if (ended) return ended;
        const step: RecordStep = (name, work) => ctx.run(name, work);
        const loop = new AgentLoop<Deps>(recordedLoopOptions(options.loop, step, onEvent));
        try {
          let result = await loop.run(request.input, { runId: ctx.key });
          for (
            let pauses = 0;
            result.status === "needs_approval" || result.status === "needs_results";
            pauses++
          ) {
            const pause = await pauseOf("restate", ctx.key, pauses, result);
            const deadline = (await ctx.date.now()) + timeoutMs;
            result = await waitForDecisions(ctx, loop, result, pause, deadline, timeoutMs);
          }
          ctx.set("result", result);
          return result;
        } catch (error) {
          // A throw of the loop's is final, as a DBOS workflow's is: a replay of the journal
          // would throw it again, attempt after attempt. Restate's own errors stay its own.
          if (error instanceof restate.RestateError) throw error;
          throw new restate.TerminalError(error instanceof Error ? error.message : String(error));
        }
      },
      waiting: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext) => (await ctx.get<Waiting>("waiting")) ?? null,
      ),
      refused: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext) => (await ctx.get<Refusal>("refused")) ?? null,
      ),
      taken: restate.handlers.object.shared(
        async (ctx: restate.ObjectSharedContext) => (await ctx.get<Taken>("taken")) ?? null,
      ),
    },
  });
  return {
    object: object as unknown as restate.VirtualObjectDefinition<string, unknown>,
    client: (ingressUrl) => restateClient(ingressUrl.replace(/\/+$/, ""), service),
  };
}

/**
 * Waits for decisions that fit the pause, each on a new awakeable published in the object
 * state, refusing (and waiting past) the ones that do not; past the deadline, every waiting
 * call is refused. Resolves with the resumed run's result.
 */
async function waitForDecisions<Deps>(
  ctx: restate.ObjectContext,
  loop: AgentLoop<Deps>,
  paused: RunResult,
  pause: Pause,
  deadline: number,
  timeoutMs: number,
): Promise<RunResult> {
  for (;;) {
    const awakeable = ctx.awakeable<unknown>(lenientJson);
    ctx.set<Waiting>("waiting", { ...pause, awakeable: awakeable.id });
    const left = Math.max(0, deadline - (await ctx.date.now()));
    let message: unknown;
    try {
      message = await awakeable.promise.orTimeout(left);
    } catch (error) {
      if (!(error instanceof restate.TimeoutError)) throw error;
      ctx.clear("waiting");
      return loop.resume(paused.state, refusalOf(pause, `no decision came within ${timeoutMs} ms`));
    }
    // Its key from its content, never from what it claims: a forgery cannot pass as another.
    const key = await keyOfMessage(pause.pause, message);
    const refuse = (reason: string) =>
      ctx.set<Refusal>("refused", { pause: pause.pause, reason, key });
    const decisions = await checkDecisions(pause, message);
    if (typeof decisions === "string") {
      refuse(decisions);
      continue;
    }
    ctx.set<Taken>("taken", { pause: pause.pause, key });
    ctx.clear("waiting");
    try {
      return await loop.resume(paused.state, decisions);
    } catch (error) {
      // Refused before anything ran (the checks resume() makes first): keep waiting.
      if (!(error instanceof ResumeError)) throw error;
      refuse(error.message);
    }
  }
}

/**
 * The awakeables' serde: JSON, and anything else resolved through the ingress (which accepts
 * any body) read as `undefined`, refused by the checks; the SDK's JSON serde would throw on
 * every replay and hold the run in retries.
 */
const lenientJson: restate.Serde<unknown> = {
  contentType: "application/json",
  serialize: (value) => new TextEncoder().encode(JSON.stringify(value)),
  deserialize(data) {
    try {
      return JSON.parse(new TextDecoder().decode(data));
    } catch {
      return undefined;
    }
  },
};

function restateClient(ingress: string, service: string): RestateAgentClient {
  const where = "restateAgent().client()";
  const object = (runId: string) => `${ingress}/${service}/${encodeURIComponent(runId)}`;
  const read = <T>(runId: string, handler: string) =>
    post<T | null>(`${object(runId)}/${handler}`, null);
  const readWaiting = (runId: string) => read<Waiting>(runId, "waiting");
  return {
    async start(runId, input) {
      if (typeof runId !== "string" || runId === "") {
        throw new TypeError(`${where}.start(): runId must be a run id, got ${kindOf(runId)}`);
      }
      await post(
        `${object(runId)}/run/send`,
        { input },
        { "idempotency-key": idempotencyKey(runId) },
      );
    },
    async result(runId, options = {}) {
      const { timeoutMs } = checkWaitOptions(`${where}.result()`, options, ["timeoutMs"]);
      const url = `${ingress}/restate/invocation/${service}/${encodeURIComponent(runId)}/run/${idempotencyKey(runId)}/attach`;
      let response: Response;
      try {
        response = await reach(
          url,
          timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) },
        );
      } catch (error) {
        if ((error as Error).name !== "TimeoutError") throw error;
        throw new Error(`${where}.result(): run ${runId} did not end within ${timeoutMs} ms`);
      }
      return answer<RunResult>(response, `the result of run ${runId}`);
    },
    async waiting(runId, options = {}) {
      const wait = checkWaitOptions(`${where}.waiting()`, options, ["timeoutMs", "after"]);
      const deadline = Date.now() + (wait.timeoutMs ?? 0);
      for (;;) {
        const waiting = await readWaiting(runId);
        if (waiting && waiting.pause > wait.after) {
          const { awakeable: _awakeable, ...pause } = waiting;
          return pause;
        }
        if (Date.now() >= deadline) return undefined;
        await sleep(POLL_MS);
      }
    },
    async decide(runId, pause, decisions) {
      checkDecideArgs(`${where}.decide()`, runId, pause, decisions);
      const key = await decisionKey(pause, decisions);
      const message = { pause, decisions };
      /** What the run did with this message, if it says yet. */
      const seen = async (): Promise<DecideOutcome | undefined> => {
        const refused = await read<Refusal>(runId, "refused");
        if (refused?.pause === pause && refused.key === key) return "refused";
        const taken = await read<Taken>(runId, "taken");
        if (taken?.pause === pause && taken.key === key) return "taken";
        return undefined;
      };
      for (;;) {
        const waiting = await readWaiting(runId);
        if (waiting?.pause !== pause) return (await seen()) ?? "not-waiting";
        await post(
          `${ingress}/restate/awakeables/${encodeURIComponent(waiting.awakeable)}/resolve`,
          message,
        );
        // The first message resolving an awakeable wins: see what became of this one.
        const deadline = Date.now() + DECIDE_WAIT_MS;
        for (;;) {
          const outcome = await seen();
          if (outcome) return outcome;
          const now = await readWaiting(runId);
          // The run sets what it took before it stops waiting: look again once it has.
          if (now?.pause !== pause) return (await seen()) ?? "not-waiting";
          // Another message took the awakeable and was refused: send this one to the next.
          if (now.awakeable !== waiting.awakeable) break;
          if (Date.now() >= deadline) return "sent";
          await sleep(POLL_MS);
        }
      }
    },
  };
}

/**
 * The idempotency key of a run's invocation: its id in base64url, as Restate takes a key in a
 * header (ASCII only) and in the attach path (not decoded there), whatever the id holds.
 */
function idempotencyKey(runId: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(runId)) binary += String.fromCharCode(byte);
  return `run.${btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}

async function post<T = unknown>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await reach(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return answer<T>(response, `POST ${url}`);
}

/** `fetch`, with an error that names the ingress it could not reach (not a bare "fetch failed"). */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if ((error as Error).name === "TimeoutError") throw error;
    const why = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `restate: cannot reach Restate's ingress at ${new URL(url).origin} (${why?.code ?? why?.message ?? (error as Error).message}); is restate-server running, and is this its ingress URL?`,
      { cause: error },
    );
  }
}

async function answer<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {}
    throw new Error(`restate: ${what} failed (${response.status}): ${message}`);
  }
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
