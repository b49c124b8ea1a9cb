/**
 * A worker pool on BullMQ: runs and decisions are jobs on one queue, any free worker takes the
 * next one, and every worker shares one run store, so a run paused or interrupted on one worker
 * goes on from its checkpoint on another.
 *
 * - `{ kind: "start", runId, prompt }` runs a new run, or recovers it from the store when a
 *   crashed worker left it mid-step (`loop.resume(runId)`).
 * - `{ kind: "resume", runId, decisions }` continues a run paused for approval.
 * - A run whose lease another worker still holds is "still running": the job fails this
 *   attempt and BullMQ retries it after a backoff (never dropped, never run by two workers at
 *   once); a decision for a run that has moved on (a duplicate) runs nothing.
 */
import { type Job, Queue, UnrecoverableError, Worker, type WorkerOptions } from "bullmq";
import type { Redis } from "ioredis";
import {
  type AgentLoop,
  type ApprovalDecisions,
  ResumeError,
  type RunResult,
  type RunStore,
  StoreError,
} from "tollgate";

/** The queue's default name. */
export const RUNS_QUEUE = "tollgate-runs";

/** A job on the runs queue. */
export type RunJob =
  | { kind: "start"; runId: string; prompt: string }
  | { kind: "resume"; runId: string; decisions: ApprovalDecisions };

/** What a job ended with: the run's status, or `skipped` when there was nothing to do. */
export interface JobOutcome {
  runId: string;
  status: RunResult["status"] | "skipped";
  /** Why a job was skipped. */
  note?: string;
  /** The worker process that ran the job. */
  pid: number;
}

/** How often and how soon a job is tried again while its run is held by another worker. */
export interface RetryOptions {
  /** Tries in all (default 20). */
  attempts?: number;
  /** The first backoff in ms, doubling each time (default 500). */
  backoffMs?: number;
}

/** The runs queue, on a connection of your own (close both when done). */
export function runsQueue(
  connection: Redis,
  { attempts = 20, backoffMs = 500 }: RetryOptions = {},
  name = RUNS_QUEUE,
): Queue<RunJob, JobOutcome> {
  return new Queue<RunJob, JobOutcome>(name, {
    connection,
    defaultJobOptions: { attempts, backoff: { type: "exponential", delay: backoffMs } },
  });
}

/** Enqueues a new run. Its job id is `start-<runId>`, so enqueuing a run twice adds one job. */
export function enqueueRun(
  queue: Queue<RunJob, JobOutcome>,
  runId: string,
  prompt: string,
): Promise<Job<RunJob, JobOutcome>> {
  return queue.add("start", { kind: "start", runId, prompt }, { jobId: `start-${runId}` });
}

/** Enqueues a human's decisions on a paused run; whichever worker is free resumes it. */
export function enqueueDecision(
  queue: Queue<RunJob, JobOutcome>,
  runId: string,
  decisions: ApprovalDecisions,
): Promise<Job<RunJob, JobOutcome>> {
  return queue.add("resume", { kind: "resume", runId, decisions });
}

/** What a worker needs: the agent, the store it shares with the other workers, BullMQ's options. */
export interface PoolWorkerOptions extends Omit<WorkerOptions, "connection"> {
  connection: Redis;
  loop: AgentLoop;
  store: RunStore;
  queueName?: string;
}

/** Starts a worker taking jobs from the runs queue (`worker.close()` stops it). */
export function startWorker({
  connection,
  loop,
  store,
  queueName = RUNS_QUEUE,
  ...options
}: PoolWorkerOptions): Worker<RunJob, JobOutcome> {
  return new Worker<RunJob, JobOutcome>(queueName, (job) => runJob(loop, store, job.data), {
    connection,
    ...options,
  });
}

/**
 * Runs one job against the shared store. A pause for approval ends the job with the run
 * waiting in the store (`store.listPending()` shows it) until a decision is enqueued.
 */
export async function runJob(loop: AgentLoop, store: RunStore, job: RunJob): Promise<JobOutcome> {
  const { runId } = job;
  const state = await store.get(runId);
  try {
    if (job.kind === "resume") {
      if (state?.status !== "needs_approval") {
        return skipped(runId, `the run is ${state?.status ?? "not in the store"}`);
      }
      return outcome(await loop.resume(runId, job.decisions));
    }
    if (!state) return outcome(await loop.run(job.prompt, { runId }));
    // A retry after a crash: go on from the checkpoint (a call that was running is run again
    // only if its tool is idempotent).
    if (state.status === "running") return outcome(await loop.resume(runId));
    return skipped(runId, `the run is already ${state.status}`);
  } catch (error) {
    if (!(error instanceof ResumeError || error instanceof StoreError)) throw error;
    if (error.retryable) {
      throw new Error(`run ${runId} is held by another worker; retried later (${error.message})`);
    }
    // Another job (a duplicate decision) resumed the same state first: nothing to do.
    const now = await store.get(runId);
    if (state && now?.stateId !== state.stateId) return skipped(runId, "the run moved on");
    // Any other refusal (a wrong digest, a state the loop cannot read) fails the job for good.
    throw new UnrecoverableError(`run ${runId}: ${error.message}`);
  }
}

function outcome(result: RunResult): JobOutcome {
  return { runId: result.state.runId, status: result.status, pid: process.pid };
}

function skipped(runId: string, note: string): JobOutcome {
  return { runId, status: "skipped", note, pid: process.pid };
}
