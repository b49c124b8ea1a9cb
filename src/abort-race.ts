/**
 * Settles a promise early when a signal aborts: `race(p)` rejects with the signal's reason the
 * moment it aborts, without waiting for `p`. One listener serves every race of a run, so a
 * long stream adds no listener per part; races are awaited one at a time.
 */
export interface AbortRace {
  race<T>(promise: Promise<T>): Promise<T>;
  /** Removes the listener; call when the run is over. */
  dispose(): void;
}

/** Makes the race helper for one run's signal. */
export function abortRace(signal: AbortSignal): AbortRace {
  let rejectCurrent: ((reason: unknown) => void) | undefined;
  const onAbort = () => rejectCurrent?.(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    race<T>(promise: Promise<T>): Promise<T> {
      if (signal.aborted) {
        promise.catch(() => {});
        return Promise.reject(signal.reason);
      }
      return new Promise<T>((resolve, reject) => {
        rejectCurrent = reject;
        promise.then(resolve, reject);
      });
    },
    dispose: () => signal.removeEventListener("abort", onAbort),
  };
}
