import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  AgentLoop,
  type AgentLoopOptions,
  type LoopEvent,
  type Message,
  ResumeError,
  type RunResult,
} from "tollgate";
import { checkDurableOptions } from "../util/durable-options.js";
import {
  checkDecisions,
  keyOfMessage,
  type Pause,
  pauseOf,
  type Refusal,
  refusalOf,
} from "../util/durable-pauses.js";
import { type RecordStep, recordedLoopOptions } from "../util/durable-steps.js";
import { checkKeys } from "../util/option-keys.js";
import { kindOf } from "../util/values.js";
import {
  type DbosRuns,
  dbosRuns,
  decisionTopic,
  REFUSED_EVENT,
  TAKEN_EVENT,
  type Taken,
  WAITING_EVENT,
} from "./dbos-runs.js";

/** Options of `dbosAgent`. */
export interface DbosAgentOptions<Deps = unknown> {
  /**
   * The agent's name: its DBOS workflow is `tollgate.run:<name>`. Every process that runs or
   * recovers the agent's runs registers it under the same name, before `DBOS.launch()`.
   */
  name: string;
  /**
   * The loop's options, as `new AgentLoop()` takes them, without `store`, `signingKey`,
   * `trustState` or `allowReplay`: DBOS keeps the run (its steps, its pauses) in its own
   * PostgreSQL. Tools run one at a time (`maxParallelToolCalls: 1`), so a replay records and
   * reads its steps in the same order.
   */
  loop: AgentLoopOptions<Deps>;
  /**
   * How long a pause waits for its decisions (default 24 hours). Past it, each waiting call is
   * refused ("no decision within …") and the run goes on: the model reads why.
   */
  approvalTimeoutMs?: number | undefined;
  /**
   * Each event of each run, with its sequence number in the run. A recovered run replays its
   * recorded steps and emits their events again, with the same numbers: keep the last number
   * seen per run and drop the ones at or below it, and a listener sees each event once.
   */
  onEvent?: ((event: LoopEvent, seq: number) => void) | undefined;
}

/** A tollgate agent whose runs are DBOS workflows. */
export interface DbosAgent extends DbosRuns {
  /**
   * Starts a run as the DBOS workflow `runId`; resolves once it is started. Starting the same
   * `runId` again starts nothing (DBOS returns the first run). With `queue` (a queue the workers
   * registered with `DBOS.registerQueue()`), the run is enqueued there and a worker that dequeues it runs it;
   * without, it runs in this process.
   */
  start(runId: string, input: string | Message[], options?: { queue?: string }): Promise<void>;
}

/** A DBOS step, as the recorded run takes its steps. */
const dbosStep: RecordStep = (name, work) => DBOS.runStep(work, { name });

const DAY_MS = 24 * 60 * 60 * 1000;

/** The name of an agent's workflow, as every process registers it and a client enqueues it. */
export const workflowName = (name: string) => `tollgate.run:${name}`;

/**
 * A tollgate agent run as a DBOS workflow (`@dbos-inc/dbos-sdk`, on the PostgreSQL you run):
 * the workflow id is the run id, each model call and each tool execution a DBOS step, and a
 * pause waits inside the workflow (`DBOS.recv`) for decisions sent with `decide()`. A process
 * that dies mid-run is recovered by DBOS when a process with its executor id launches again:
 * settled calls keep their recorded results, an idempotent tool that was running runs again,
 * and any other that was running is "outcome unknown", never run twice. The gate, the
 * transcript and the events stay tollgate's. Call it before `DBOS.launch()`, in every process.
 *
 * @example
 * const agent = dbosAgent({ name: "support", loop: { provider, tools: [refund] } });
 * await DBOS.launch();
 * await agent.start("ticket-42", "Refund order 7");
 */
export function dbosAgent<Deps = unknown>(options: DbosAgentOptions<Deps>): DbosAgent {
  checkDurableOptions(
    "dbosAgent()",
    options,
    "DBOS's to keep: a DBOS workflow holds the run's steps and pauses in its own PostgreSQL",
  );
  const { name, onEvent } = options;
  const timeoutMs = options.approvalTimeoutMs ?? DAY_MS;
  const workflow = DBOS.registerWorkflow(
    async (runId: string, input: string | Message[]): Promise<RunResult> => {
      const loop = new AgentLoop<Deps>(recordedLoopOptions(options.loop, dbosStep, onEvent));
      let result = await loop.run(input, { runId });
      for (
        let pauses = 0;
        result.status === "needs_approval" || result.status === "needs_results";
        pauses++
      ) {
        const pause = await pauseOf("dbos", runId, pauses, result);
        const deadline = (await DBOS.now()) + timeoutMs;
        result = await waitForDecisions(loop, result, pause, deadline, timeoutMs);
      }
      return result;
    },
    { name: workflowName(name) },
  );
  /** The results of runs this process started, awaited without polling the database. */
  const started = new Map<string, Promise<RunResult>>();
  const runs = dbosRuns("dbosAgent()", {
    getEvent: (runId, key) => DBOS.getEvent(runId, key, 0),
    send: (runId, message, topic, key) => DBOS.send(runId, message, topic, key),
    status: async (runId) => (await DBOS.getWorkflowStatus(runId))?.status,
    ended: (runId) => DBOS.retrieveWorkflow<RunResult>(runId).getResult(),
    live: (runId) => started.get(runId),
  });
  return {
    ...runs,
    async start(runId, input, startOptions = {}) {
      checkKeys("dbosAgent().start() options", startOptions, ["queue"]);
      const { queue } = startOptions;
      if (queue !== undefined && (typeof queue !== "string" || queue === "")) {
        throw new TypeError(
          `dbosAgent().start(): queue must be the name of a queue (DBOS.registerQueue()), got ${kindOf(queue)}`,
        );
      }
      const params =
        queue === undefined ? { workflowID: runId } : { workflowID: runId, queueName: queue };
      const handle = await DBOS.startWorkflow(workflow, params)(runId, input);
      const result = handle.getResult();
      result.catch(() => {}); // result() reports it
      started.set(runId, result);
      result.finally(() => started.delete(runId)).catch(() => {});
    },
  };
}

/**
 * Waits for decisions that fit the pause, refusing (and waiting past) the ones that do not;
 * past the deadline, every waiting call is refused. Resolves with the resumed run's result.
 */
async function waitForDecisions<Deps>(
  loop: AgentLoop<Deps>,
  paused: RunResult,
  pause: Pause,
  deadline: number,
  timeoutMs: number,
): Promise<RunResult> {
  for (;;) {
    await DBOS.setEvent(WAITING_EVENT, pause);
    const left = Math.max(0, deadline - (await DBOS.now()));
    const message = await DBOS.recv<unknown>(decisionTopic(pause.pause), Math.ceil(left / 1000));
    if (message === null) {
      await DBOS.setEvent(WAITING_EVENT, null);
      return loop.resume(paused.state, refusalOf(pause, `no decision came within ${timeoutMs} ms`));
    }
    const key = await keyOfMessage(pause.pause, message);
    const refuse = (reason: string) =>
      DBOS.setEvent<Refusal>(REFUSED_EVENT, { pause: pause.pause, reason, key });
    const decisions = await checkDecisions(pause, message);
    if (typeof decisions === "string") {
      await refuse(decisions);
      continue;
    }
    // What it took first, then that it waits no more: `decide()` reads them in that order.
    await DBOS.setEvent<Taken>(TAKEN_EVENT, { pause: pause.pause, key });
    await DBOS.setEvent(WAITING_EVENT, null);
    try {
      return await loop.resume(paused.state, decisions);
    } catch (error) {
      // Refused before anything ran (the checks resume() makes first): keep waiting.
      if (!(error instanceof ResumeError)) throw error;
      await refuse(error.message);
    }
  }
}
