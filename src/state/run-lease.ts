import { messageOf, StoreError } from "../errors.js";
import type { RunLease } from "./run-store.js";
import type { StoreCalls } from "./store-calls.js";

/**
 * Keeps a run's lease alive while the run goes on: renews it every third of its length. When
 * a renewal is refused (another process took the run over after the lease ran out) or fails,
 * `lost` is called with a `StoreError`, once, and renewing stops. Renewing stops too when the
 * run's signal aborts: the run is over for this process, so its lease runs out on its own.
 * Returns the function that stops renewing.
 */
export function keepLease(
  store: StoreCalls,
  lease: RunLease,
  signal: AbortSignal,
  lost: (error: StoreError) => void,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    timer = setTimeout(renew, renewalDelay(lease.ttlMs));
    // A renewal timer alone must not keep a process alive (Node); other runtimes have no unref.
    (timer as { unref?: () => void }).unref?.();
  };
  const renew = async () => {
    let kept: boolean;
    try {
      kept = await store.renew(lease);
    } catch (error) {
      if (!stopped) lost(asStoreError(error));
      stopped = true;
      return;
    }
    if (stopped) return;
    if (!kept) {
      stopped = true;
      lost(
        new StoreError(
          `run ${lease.runId} lost its lease (token ${lease.token}): another process took the run over; this process stops it`,
          "renew",
        ),
      );
      return;
    }
    schedule();
  };
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  };
  signal.addEventListener("abort", stop, { once: true });
  schedule();
  return stop;
}

/** A third of the lease, at least 1 ms and at most what a timer can wait (about 24.8 days). */
function renewalDelay(ttlMs: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.floor(ttlMs / 3)));
}

const MAX_TIMER_MS = 2 ** 31 - 1;

function asStoreError(error: unknown): StoreError {
  return error instanceof StoreError
    ? error
    : new StoreError(`renewing the lease failed: ${messageOf(error)}`, "renew", { cause: error });
}
