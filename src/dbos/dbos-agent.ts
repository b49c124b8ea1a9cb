import { DBOS } from "@dbos-inc/dbos-sdk";
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

/** What a run waits for, as `waiting()` gives it: decide it with `decide()`. */
export type WaitingRun = Pause;

/** A tollgate agent whose runs are DBOS workflows. */
export interface DbosAgent {
  /**
   * Starts a run as the DBOS workflow `runId`; resolves once it is started. Starting the same
   * `runId` again starts nothing (DBOS returns the first run).
   */
  start(runId: string, input: string | Message[]): Promise<void>;
  /** The run's result once it ends (a paused run has not ended: it waits inside its workflow). */
  result(runId: string): Promise<RunResult>;
  /**
   * What the run waits for now, if it is paused: the calls waiting for approval and the
   * client-side calls waiting for results, each with the digest a decision must carry.
   * `timeoutMs` (default 0) waits for a pause to come.
   */
  waiting(runId: string, options?: { timeoutMs?: number }): Promise<WaitingRun | undefined>;
  /**
   * Sends the decisions for a pause (every call it waits on, each with its `digest`). The run
   * checks them as `resume()` does: decisions for another pause, a wrong digest or a missing
   * call are refused and the run keeps waiting; the same decisions sent twice run once.
   */
  decide(runId: string, pause: number, decisions: ApprovalDecisions): Promise<void>;
}

/** A DBOS step, as the recorded run takes its steps. */
const dbosStep: RecordStep = (name, work) => DBOS.runStep(work, { name });

/** The DBOS event a paused run publishes what it waits for under (`null` once it goes on). */
const waitingTopic = "tollgate.waiting";
const DAY_MS = 24 * 60 * 60 * 1000;
/** How often `result()` looks for the end of a run this process did not start (DBOS's default: 1 s). */
const RESULT_POLL_MS = 50;

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
        await DBOS.setEvent(waitingTopic, pause);
        const deadline = (await DBOS.now()) + timeoutMs;
        result = await waitForDecisions(loop, result, pause, deadline, timeoutMs);
        await DBOS.setEvent(waitingTopic, null);
      }
      return result;
    },
    { name: `tollgate.run:${name}` },
  );
  /** The handles of runs this process started, awaited without polling the database. */
  const started = new Map<string, Promise<RunResult>>();
  return {
    async start(runId, input) {
      const handle = await DBOS.startWorkflow(workflow, { workflowID: runId })(runId, input);
      const result = handle.getResult();
      result.catch(() => {}); // result() reports it
      started.set(runId, result);
      result.finally(() => started.delete(runId)).catch(() => {});
    },
    result: (runId) =>
      started.get(runId) ??
      DBOS.retrieveWorkflow<RunResult>(runId).getResult({ pollingIntervalMs: RESULT_POLL_MS }),
    async waiting(runId, waitOptions = {}) {
      const seconds = (waitOptions.timeoutMs ?? 0) / 1000;
      const pause = await DBOS.getEvent<Pause | null>(runId, waitingTopic, seconds);
      return pause ?? undefined;
    },
    async decide(runId, pause, decisions) {
      checkDecideArgs("dbosAgent().decide()", runId, pause, decisions);
      const message = { pause, decisions };
      await DBOS.send(runId, message, `${waitingTopic}:${pause}`, await messageKey(message));
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
    const left = Math.max(0, deadline - (await DBOS.now()));
    const message = await DBOS.recv<unknown>(
      `${waitingTopic}:${pause.pause}`,
      Math.ceil(left / 1000),
    );
    if (message === null)
      return loop.resume(paused.state, refusalOf(pause, `no decision came within ${timeoutMs} ms`));
    const decisions = await checkDecisions(pause, message);
    if (typeof decisions === "string") {
      await DBOS.setEvent(`${waitingTopic}.refused`, { pause: pause.pause, reason: decisions });
      continue;
    }
    try {
      return await loop.resume(paused.state, decisions);
    } catch (error) {
      // Refused before anything ran (the checks resume() makes first): keep waiting.
      if (!(error instanceof ResumeError)) throw error;
      await DBOS.setEvent(`${waitingTopic}.refused`, { pause: pause.pause, reason: error.message });
    }
  }
}

/** The idempotency key of a decision message: its content, so the same decisions run once. */
function messageKey(message: unknown): Promise<string> {
  return sha256Hex(canonicalJson(message));
}
