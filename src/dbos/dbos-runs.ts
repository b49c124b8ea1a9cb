import type { ApprovalDecisions, RunResult } from "tollgate";
import { checkDecideArgs, checkWaitOptions } from "../util/durable-options.js";
import {
  type DecideOutcome,
  type DurableRuns,
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

/**
 * Following and deciding an agent's runs, from any process that reaches DBOS's database.
 * `result()` also rejects for a run id DBOS does not know.
 */
export interface DbosRuns extends DurableRuns<ApprovalDecisions> {}

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
