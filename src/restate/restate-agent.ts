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
import { canonicalJson, sha256Hex } from "../util/canonical-json.js";
import { checkDecideArgs, checkDurableOptions } from "../util/durable-options.js";
import { checkDecisions, type Pause, pauseOf, refusalOf } from "../util/durable-pauses.js";
import { type RecordStep, recordedLoopOptions } from "../util/durable-steps.js";

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

/** A refused decision message, as the `refused` shared handler gives the last one. */
export interface Refusal {
  pause: number;
  reason: string;
}

/** A tollgate agent's client, talking to Restate's ingress. */
export interface RestateAgentClient {
  /**
   * Starts the run `runId` (ingress `/send`, idempotency key `runId`); resolves once Restate
   * accepted it. Starting the same `runId` again starts nothing: Restate answers with the first
   * invocation for as long as it keeps idempotency keys (24 hours by default), and after that
   * the run's object state holds its result, which a second invocation returns.
   */
  start(runId: string, input: string | Message[]): Promise<void>;
  /** The run's result once it ends (attached to the invocation through the ingress). */
  result(runId: string): Promise<RunResult>;
  /**
   * What the run waits for now, if it is paused: the calls waiting for approval and the
   * client-side calls waiting for results, each with the digest a decision must carry.
   * `timeoutMs` (default 0) waits for a pause to come.
   */
  waiting(runId: string, options?: { timeoutMs?: number }): Promise<WaitingRun | undefined>;
  /**
   * Sends the decisions for a pause (every call it waits on, each with its `digest`) by
   * resolving the pause's awakeable. The run checks them as `resume()` does: decisions for
   * another pause, a wrong digest or a missing call are refused and the run keeps waiting; the
   * same decisions sent twice run once. Resolves once the run took them (or, if the run does
   * not take them within 10 s, once they are left with Restate); sends nothing when the run is
   * not waiting in that pause.
   */
  decide(runId: string, pause: number, decisions: ApprovalDecisions): Promise<void>;
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
  /** The message the previous awakeable of this pause took (refused). */
  last?: { awakeable: string; key: string };
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
  let last: Waiting["last"];
  for (;;) {
    const awakeable = ctx.awakeable<unknown>(lenientJson);
    ctx.set<Waiting>("waiting", { ...pause, awakeable: awakeable.id, ...(last && { last }) });
    const left = Math.max(0, deadline - (await ctx.date.now()));
    let message: unknown;
    try {
      message = await awakeable.promise.orTimeout(left);
    } catch (error) {
      if (!(error instanceof restate.TimeoutError)) throw error;
      ctx.clear("waiting");
      return loop.resume(paused.state, refusalOf(pause, `no decision came within ${timeoutMs} ms`));
    }
    last = { awakeable: awakeable.id, key: messageKeyOf(message) };
    const decisions = await checkDecisions(pause, message);
    if (typeof decisions === "string") {
      ctx.set<Refusal>("refused", { pause: pause.pause, reason: decisions });
      continue;
    }
    ctx.clear("waiting");
    try {
      return await loop.resume(paused.state, decisions);
    } catch (error) {
      // Refused before anything ran (the checks resume() makes first): keep waiting.
      if (!(error instanceof ResumeError)) throw error;
      ctx.set<Refusal>("refused", { pause: pause.pause, reason: error.message });
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

/** The key a decision message carries (its content hash), or "" for a message without one. */
function messageKeyOf(message: unknown): string {
  const key = (message as { key?: unknown } | null)?.key;
  return typeof key === "string" ? key : "";
}

function restateClient(ingress: string, service: string): RestateAgentClient {
  const object = (runId: string) => `${ingress}/${service}/${encodeURIComponent(runId)}`;
  const readWaiting = (runId: string) => post<Waiting | null>(`${object(runId)}/waiting`, null);
  return {
    async start(runId, input) {
      await post(`${object(runId)}/run/send`, { input }, { "idempotency-key": runId });
    },
    async result(runId) {
      const key = encodeURIComponent(runId);
      const response = await fetch(
        `${ingress}/restate/invocation/${service}/${key}/run/${key}/attach`,
      );
      return answer<RunResult>(response, `the result of run ${runId}`);
    },
    async waiting(runId, waitOptions = {}) {
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 0);
      for (;;) {
        const waiting = await readWaiting(runId);
        if (waiting) {
          const { awakeable: _awakeable, last: _last, ...pause } = waiting;
          return pause;
        }
        if (Date.now() >= deadline) return undefined;
        await sleep(POLL_MS);
      }
    },
    async decide(runId, pause, decisions) {
      checkDecideArgs("restateAgent().client().decide()", runId, pause, decisions);
      const key = await sha256Hex(canonicalJson({ pause, decisions }));
      const message = { pause, decisions, key };
      for (;;) {
        const waiting = await readWaiting(runId);
        if (!waiting || waiting.pause !== pause) return; // nothing waits in this pause (any more)
        await post(
          `${ingress}/restate/awakeables/${encodeURIComponent(waiting.awakeable)}/resolve`,
          message,
        );
        // The first message resolving an awakeable wins: see which one took it.
        const deadline = Date.now() + DECIDE_WAIT_MS;
        let now = await readWaiting(runId);
        while (now?.awakeable === waiting.awakeable && Date.now() < deadline) {
          await sleep(POLL_MS);
          now = await readWaiting(runId);
        }
        const takenByAnother =
          now?.pause === pause && now.last?.awakeable === waiting.awakeable && now.last.key !== key;
        if (!takenByAnother) return;
      }
    },
  };
}

async function post<T = unknown>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return answer<T>(response, `POST ${url}`);
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
