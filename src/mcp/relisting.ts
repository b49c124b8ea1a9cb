/**
 * When an MCP server's tools are listed again. One listing runs at a time. A change announced
 * while none runs starts one at once; changes announced during a listing get one follow-up
 * listing, and any announced during that follow-up wait for the next step (or change). So a
 * server that announces a change in answer to every listing gets a bounded number of listings,
 * and never keeps a step waiting.
 */
export interface Relisting<T> {
  /** The server says its tools changed (`list_changed`): list them again unless a listing runs. */
  changed(): void;
  /** A listing asked for now, after every change so far; settles with its outcome. */
  refresh(): Promise<T>;
  /**
   * Settles (never rejects) once a listing asked for after every change announced so far has
   * settled: at most the one running and one more.
   */
  fresh(): Promise<void>;
}

/** A listing, and how many changes had been announced when it was asked for. */
interface Listing<T> {
  asOf: number;
  done: Promise<T>;
}

/**
 * The `Relisting` of `list` (which lists the server's tools once and keeps the result), after a
 * `first` listing that no change had been announced before.
 *
 * @example
 * const relist = relisting(() => build(), await build());
 * client.setNotificationHandler(ToolListChangedNotificationSchema, () => relist.changed());
 * await relist.fresh(); // in prepareStep
 */
export function relisting<T>(list: () => Promise<T>, first: T): Relisting<T> {
  let changes = 0;
  let running: Listing<T> | undefined;
  let last: Listing<T> = { asOf: 0, done: Promise.resolve(first) };
  const start = (followUp: boolean): Promise<T> => {
    const listing: Listing<T> = { asOf: changes, done: Promise.resolve().then(list) };
    running = listing;
    const settled = () => {
      running = undefined;
      last = listing;
      if (!followUp && changes > listing.asOf) start(true).catch(() => {});
    };
    listing.done.then(settled, settled);
    return listing.done;
  };
  /** The outcome of a listing asked for once `n` changes had been announced. */
  const asOf = (n: number): Promise<T> => {
    if (running !== undefined) {
      if (running.asOf >= n) return running.done;
      // Its `settled` runs first, and may start the follow-up this then waits for.
      const again = () => asOf(n);
      return running.done.then(again, again);
    }
    if (last.asOf >= n) return last.done;
    return start(false);
  };
  return {
    changed: () => {
      changes++;
      if (running === undefined) start(false).catch(() => {});
    },
    refresh: () => asOf(++changes),
    fresh: () =>
      asOf(changes).then(
        () => {},
        () => {},
      ),
  };
}
