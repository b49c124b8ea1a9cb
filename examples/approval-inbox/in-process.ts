/**
 * The inbox's worker when the loop runs in the inbox's own process: `resume` resumes the run
 * with `loop.resumeStream` and keeps its events, so the page can watch them live (and from the
 * start, however late it connects). A worker pool implements the same two methods over its queue.
 */
import type { AgentLoop, ApprovalDecisions, LoopEvent } from "tollgate";
import type { InboxWorker } from "./inbox.js";

/** How many runs' events are kept (the oldest are dropped first). */
const KEPT_RUNS = 1_000;

/** One resume's events so far, and the readers waiting for more. */
interface Feed {
  events: LoopEvent[];
  done: boolean;
  error?: unknown;
  wake: Set<() => void>;
}

/**
 * An `InboxWorker` over an in-process loop (give it a loop with the inbox's store). `resume`
 * resolves once the loop accepted the decisions (it rejects with the loop's `ResumeError`,
 * nothing run, when it did not); the run goes on in the background.
 */
export function inProcessWorker(loop: AgentLoop<any, any>): InboxWorker {
  const feeds = new Map<string, Feed>();
  return {
    async resume(runId: string, decisions: ApprovalDecisions): Promise<void> {
      const events = loop.resumeStream(runId, decisions);
      const first = await events.next(); // the resume's checks: nothing has run when it throws
      const feed: Feed = { events: [], done: false, wake: new Set() };
      feeds.delete(runId);
      feeds.set(runId, feed);
      if (feeds.size > KEPT_RUNS) feeds.delete(feeds.keys().next().value!);
      void pump(feed, first, events);
    },
    events(runId: string): AsyncIterable<LoopEvent> | undefined {
      const feed = feeds.get(runId);
      return feed && read(feed);
    },
  };
}

/** Keeps every event of the run in its feed, waking the readers. */
async function pump(
  feed: Feed,
  first: IteratorResult<LoopEvent>,
  events: AsyncGenerator<LoopEvent>,
): Promise<void> {
  const wake = () => {
    for (const reader of feed.wake) reader();
  };
  try {
    for (let step = first; !step.done; step = await events.next()) {
      feed.events.push(step.value);
      wake();
    }
  } catch (error) {
    feed.error = error;
  }
  feed.done = true;
  wake();
}

/** The feed's events from the first, then each as it comes, until the run ends. */
async function* read(feed: Feed): AsyncGenerator<LoopEvent> {
  let at = 0;
  while (true) {
    while (at < feed.events.length) yield feed.events[at++]!;
    if (feed.done) {
      if (feed.error !== undefined) throw feed.error;
      return;
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        feed.wake.delete(wake);
        resolve();
      };
      feed.wake.add(wake);
    });
  }
}
