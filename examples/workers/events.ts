/**
 * A run's events across processes: each worker appends the events of its runs to a Redis
 * stream per run, and an approval inbox in another process reads them, from the first event
 * of the latest resume, live. `queueInboxWorker` is the inbox's worker (`resume` and `events`,
 * as examples/approval-inbox/ takes them) over the queue.
 */
import { createHash } from "node:crypto";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type ApprovalDecisions, type LoopEvent, ResumeError } from "tollgate";
import { enqueueDecision, type JobOutcome, type RunJob } from "./pool.js";

/** How long a run's event log stays after its last event, in ms. */
const KEEP_MS = 60 * 60 * 1000;
/** How long a reader waits for a run's next event before it gives up, in ms. */
const IDLE_MS = 60 * 1000;

/** The stream a run's events are appended to. */
export function eventsKey(prefix: string, runId: string): string {
  return `${prefix}events:{run:${runId}}`;
}

/** Set (for `KEEP_MS`) once a run is resumed: its events can be watched, or are on their way. */
function resumedKey(prefix: string, runId: string): string {
  return `${prefix}resumed:{run:${runId}}`;
}

/** A loop listener (`onEvent`) that appends every event to its run's stream, as JSON. */
export function publishEvents(redis: Redis, prefix: string): (event: LoopEvent) => void {
  return (event) => {
    const key = eventsKey(prefix, event.runId);
    // A lost event only leaves the inbox's live view short: it never fails the run.
    redis
      .multi()
      .xadd(key, "*", "event", JSON.stringify(event))
      .pexpire(key, KEEP_MS)
      .exec()
      .catch(() => {});
  };
}

/** An approval inbox's worker over the pool: decisions go on the queue, events come from Redis. */
export function queueInboxWorker(
  queue: Queue<RunJob, JobOutcome>,
  redis: Redis,
  prefix: string,
): {
  resume(runId: string, decisions: ApprovalDecisions): Promise<void>;
  /** The latest resume's events; `undefined` at once when no resume of the run is known. */
  events(runId: string): Promise<AsyncIterable<LoopEvent> | undefined>;
  /** Ends every reader's stream and closes its connection. */
  close(): void;
} {
  const readers = new Set<Redis>();
  return {
    async resume(runId, decisions) {
      // A paused state is decided once: a second submit (another tab) is refused, as the
      // in-process worker's claim refuses it, rather than wiping the first resume's log.
      const once = `${prefix}decided:{run:${runId}}:${stateOf(decisions)}`;
      if ((await redis.set(once, "1", "PX", KEEP_MS, "NX")) !== "OK") {
        throw new ResumeError(
          `this decision was already made (one on this paused state of run ${runId} was sent); reload`,
        );
      }
      // The log starts again with this resume, so a reader sees its events from the first.
      await redis
        .multi()
        .del(eventsKey(prefix, runId))
        .set(resumedKey(prefix, runId), "1", "PX", KEEP_MS)
        .exec();
      await enqueueDecision(queue, runId, decisions);
    },
    async events(runId) {
      // A run never resumed (its stream may hold its first run's events) is an answer now,
      // not a reader that waits 60 s for nothing.
      if ((await redis.exists(resumedKey(prefix, runId))) === 0) return undefined;
      return readEvents(redis, eventsKey(prefix, runId), readers);
    },
    close() {
      for (const reader of readers) reader.disconnect();
      readers.clear();
    },
  };
}

/**
 * The paused state the decisions are about: their calls' digests, which bind each call to it
 * (the inbox gives every decision its call's digest from the store; one without is refused).
 */
function stateOf(decisions: ApprovalDecisions): string {
  const digests = Object.entries(decisions).map(([key, decision]) => {
    if (typeof decision.digest !== "string" || decision.digest === "") {
      throw new TypeError(`the decision for ${key} carries no digest of its call`);
    }
    return decision.digest;
  });
  return createHash("sha256").update(digests.sort().join("\n")).digest("hex");
}

/**
 * Reads a run's stream from its start until the run finishes, fails, or stays idle too long,
 * or until its reader is closed.
 */
async function* readEvents(
  redis: Redis,
  key: string,
  readers: Set<Redis>,
): AsyncGenerator<LoopEvent> {
  const reader = redis.duplicate(); // XREAD BLOCK holds its connection
  readers.add(reader);
  try {
    let last = "0";
    for (let idle = 0; idle < IDLE_MS; ) {
      if (!readers.has(reader)) return;
      const reply = (await reader
        .xread("BLOCK", 1000, "STREAMS", key, last)
        .catch((error: unknown) => {
          if (readers.has(reader)) throw error;
          return null; // closed meanwhile
        })) as [string, [string, string[]][]][] | null;
      const entries = reply?.[0]?.[1] ?? [];
      idle = entries.length === 0 ? idle + 1000 : 0;
      for (const [id, fields] of entries) {
        last = id;
        const event = JSON.parse(fields[1] ?? "null") as LoopEvent;
        yield event;
        if (event.type === "run-finish" || event.type === "run-error") return;
      }
    }
  } finally {
    readers.delete(reader);
    reader.disconnect();
  }
}
