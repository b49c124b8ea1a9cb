import { ResumeError, StoreError } from "../errors.js";
import type { RunContext } from "../loop/run-context.js";
import { leaseTaken } from "../loop/run-record.js";
import type { LocalLeases } from "../state/local-leases.js";
import { keepLease } from "../state/run-lease.js";
import { isPaused } from "../state/run-state.js";
import type { RunLease } from "../state/run-store.js";
import type { StoreCalls } from "../state/store-calls.js";
import type { RunResult } from "../types/run-result.js";

/**
 * Takes a run id's lease for a resume; a live lease means the run is still running: in this
 * process (a second resume of it, such as a double submit), or elsewhere.
 */
export async function takeRun(
  store: StoreCalls,
  runId: string,
  leases: LocalLeases,
): Promise<RunLease> {
  const lease = await store.acquire(runId);
  if (lease) {
    leases.hold(runId);
    return lease;
  }
  switch (leases.holder(runId)) {
    case "running":
      throw new ResumeError(
        `run ${runId} is still running in this process (a resume or run of it started here has not ended), so this resume was refused and nothing ran; the first goes on. A double submit? Answer the second request with a conflict (HTTP 409); once the run pauses again, decide its new pending calls`,
        { retryable: true },
      );
    case "aborted":
      throw new ResumeError(
        `run ${runId} is still running in this process: it was aborted here, and a tool it started may still run until its lease runs out; resume it from its checkpoint then`,
        { retryable: true },
      );
    default:
      throw new ResumeError(
        `run ${runId} is still running: another process holds its lease and renews it while it runs; resume it once it has paused, or once its lease has run out after a crash`,
        { retryable: true },
      );
  }
}

/**
 * A new `run()` must not write over a run that waits for approval or that a crash left
 * unfinished: its pending approval would then apply to the new run's calls. Refused with a
 * `StoreError` (the lease just taken is given back).
 */
async function refuseToReplace(store: StoreCalls, lease: RunLease): Promise<void> {
  const stored = await store.get(lease.runId);
  if (!isPaused(stored?.status) && stored?.status !== "running") return;
  await store.release(lease);
  const what =
    stored.status === "needs_approval"
      ? "is paused, waiting for approval"
      : stored.status === "needs_results"
        ? "is paused, waiting for client-side tools' results"
        : "has an unfinished checkpoint (its process stopped)";
  throw new StoreError(
    `run ${lease.runId} ${what}; resume it with loop.resume("${lease.runId}", decisions), or give the new run another runId`,
    "get",
  );
}

/**
 * Runs `body` under the run's lease: takes it first when the run has none yet (`run()`; two
 * live runs never share a run id), renews it meanwhile, and gives it up once the run ended
 * (not after an abort: its tools may still be running, so the lease runs out on its own).
 */
export async function leased<Deps>(
  run: RunContext<Deps>,
  { store, leases }: { store: StoreCalls; leases: LocalLeases },
  lost: (error: StoreError) => void,
  body: () => Promise<RunResult>,
): Promise<RunResult> {
  let lease = run.lease;
  if (!lease) {
    try {
      lease = await takeNewRun(store, run.runId);
    } catch (error) {
      if (error instanceof StoreError) error.messages = run.messages.slice();
      throw error;
    }
    leaseTaken(run, lease);
    leases.hold(run.runId);
  }
  const stop = keepLease(store, lease, run.abort.signal, (error) => {
    leases.drop(lease.runId);
    lost(error);
  });
  try {
    const result = await body();
    stop();
    // The run ended and its state is written: a failed release only means the lease runs out
    // on its own, so it does not turn a finished run into a failure (which would invite a rerun).
    leases.drop(lease.runId);
    await store.release(lease).catch(() => {});
    return result;
  } catch (error) {
    stop();
    if (!run.abort.aborted) {
      leases.drop(lease.runId);
      await store.release(lease).catch(() => {});
    } else if (leases.holder(lease.runId) === "running") {
      leases.leave(lease); // aborted before it held the lease: it runs out from now
    }
    throw error;
  }
}

/** Takes a new run's lease; refused while another run holds it, or the store holds a paused run of the id. */
async function takeNewRun(store: StoreCalls, runId: string): Promise<RunLease> {
  const lease = await store.acquire(runId);
  if (!lease) {
    throw new StoreError(
      `run ${runId} is already running (another run holds its lease); two live runs never share a runId`,
      "acquire",
      { retryable: true },
    );
  }
  await refuseToReplace(store, lease);
  return lease;
}

/**
 * Gives a lease back, when a resume is refused or cannot start: a failed release only means
 * the lease runs out on its own.
 */
export async function giveBack(
  leases: LocalLeases,
  store: StoreCalls,
  lease: RunLease,
): Promise<void> {
  leases.drop(lease.runId);
  await store.release(lease).catch(() => {});
}
