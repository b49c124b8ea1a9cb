import type { ApprovalDecisions, RunResult } from "tollgate";
import { checkDecideArgs, checkWaitOptions } from "../util/durable-options.js";
import {
  type DecideOutcome,
  decisionKey,
  type Pause,
  type Refusal,
} from "../util/durable-pauses.js";

/** The DBOS event a paused run publishes what it waits for under (`null` once it goes on). */
export const WAITING_EVENT = "tollgate.waiting";
/** The DBOS event a run publishes its latest refused decision message under (a `Refusal`). */
export const REFUSED_EVENT = "tollgate.waiting.refused";
/** The DBOS event a run publishes the decision message it took under (`{ pause, key }`). */
export const TAKEN_EVENT = "tollgate.waiting.taken";
/** The topic a pause's decisions are sent on: a stale decision for another pause is never read. */
export const decisionTopic = (pause: number) => `${WAITING_EVENT}:${pause}`;

/** What a paused run waits for, as `waiting()` gives it: decide it with `decide()`. */
export type WaitingRun = Pause;

/** Following and deciding an agent's runs, from any process that reaches DBOS's database. */
export interface DbosRuns {
  /**
   * The run's result once it ends (a paused run has not ended: it waits inside its workflow).
   * Rejects for a run id DBOS does not know, and after `timeoutMs` (default: no limit) when
   * the run has not ended by then.
   */
  result(runId: string, options?: { timeoutMs?: number }): Promise<RunResult>;
  /**
   * What the run waits for now, if it is paused: the calls waiting for approval and the
   * client-side calls waiting for results, each with the digest a decision must carry.
   * `timeoutMs` (default 0) waits for a pause to come; `after` (a pause's number) waits for a
   * later pause than that one. Resolves `undefined` when none comes in time or the run ends.
   */
  waiting(
    runId: string,
    options?: { timeoutMs?: number; after?: number },
  ): Promise<WaitingRun | undefined>;
  /**
   * Sends the decisions for a pause (every call it waits on, each with its `digest`). The run
   * checks them as `resume()` does: decisions for another pause, a wrong digest or a missing
   * call are refused and the run keeps waiting; the same decisions sent twice run once.
   * Resolves with what became of them: `"taken"`, `"refused"`, `"not-waiting"` (the run does
   * not wait in that pause, or went on with other decisions) or `"sent"` (neither taken nor
   * refused within 10 s).
   */
  decide(runId: string, pause: number, decisions: ApprovalDecisions): Promise<DecideOutcome>;
}

/** What `DbosRuns` needs of DBOS: DBOS itself in a launched process, or a `DBOSClient`. */
export interface DbosAccess {
  getEvent<T>(runId: string, key: string): Promise<T | null>;
  send(runId: string, message: unknown, topic: string, idempotencyKey: string): Promise<void>;
  /** The workflow's status (`PENDING`, `SUCCESS`…), `undefined` for an unknown id. */
  status(runId: string): Promise<string | undefined>;
  /** The result of a run that has ended. */
  ended(runId: string): Promise<RunResult>;
  /** The live result of a run this process started, if it did. */
  live?(runId: string): Promise<RunResult> | undefined;
}

/** The decision message a run took for a pause. */
export interface Taken {
  pause: number;
  key: string;
}

/** How often a wait looks at DBOS's tables. */
const POLL_MS = 50;
/** How long `decide()` waits to see its decisions taken or refused. */
const DECIDE_WAIT_MS = 10_000;
/** Statuses of a workflow that will not run on without someone's help. */
const ENDED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** `waiting`, `decide` and `result` over a way to reach DBOS (`where` names them in errors). */
export function dbosRuns(where: string, access: DbosAccess): DbosRuns {
  const current = (runId: string) => access.getEvent<Pause | null>(runId, WAITING_EVENT);
  return {
    async result(runId, options = {}) {
      const { timeoutMs } = checkWaitOptions(`${where}.result()`, options, ["timeoutMs"]);
      const live = access.live?.(runId);
      const deadline = Date.now() + (timeoutMs ?? Number.POSITIVE_INFINITY);
      const late = () =>
        new Error(`${where}.result(): run ${runId} did not end within ${timeoutMs} ms`);
      if (live) {
        if (timeoutMs === undefined) return live;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(late()), timeoutMs);
        });
        return Promise.race([live, timeout]).finally(() => clearTimeout(timer));
      }
      for (;;) {
        const status = await access.status(runId);
        if (status === undefined) {
          throw new Error(`${where}.result(): DBOS has no run ${runId} (was it started?)`);
        }
        if (ENDED.has(status)) return access.ended(runId);
        if (Date.now() >= deadline) throw late();
        await sleep(POLL_MS);
      }
    },
    async waiting(runId, options = {}) {
      const wait = checkWaitOptions(`${where}.waiting()`, options, ["timeoutMs", "after"]);
      const deadline = Date.now() + (wait.timeoutMs ?? 0);
      for (;;) {
        const pause = await current(runId);
        if (pause && pause.pause > wait.after) return pause;
        if (!pause) {
          const status = await access.status(runId);
          if (status !== undefined && ENDED.has(status)) return undefined;
        }
        if (Date.now() >= deadline) return undefined;
        await sleep(POLL_MS);
      }
    },
    async decide(runId, pause, decisions) {
      checkDecideArgs(`${where}.decide()`, runId, pause, decisions);
      const key = await decisionKey(pause, decisions);
      /** What the run did with this message, if it says yet. */
      const seen = async (): Promise<DecideOutcome | undefined> => {
        const refused = await access.getEvent<Refusal | null>(runId, REFUSED_EVENT);
        if (refused?.pause === pause && refused.key === key) return "refused";
        const taken = await access.getEvent<Taken | null>(runId, TAKEN_EVENT);
        if (taken?.pause === pause && taken.key === key) return "taken";
        return undefined;
      };
      if ((await current(runId))?.pause !== pause) return (await seen()) ?? "not-waiting";
      await access.send(runId, { pause, decisions }, decisionTopic(pause), key);
      const deadline = Date.now() + DECIDE_WAIT_MS;
      for (;;) {
        const outcome = await seen();
        if (outcome) return outcome;
        // The run publishes what it took before it stops waiting: look again once it has.
        if ((await current(runId))?.pause !== pause) return (await seen()) ?? "not-waiting";
        if (Date.now() >= deadline) return "sent";
        await sleep(POLL_MS);
      }
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
