/** A memory of the latest ids: bounded, so a long-lived process does not grow with every id. */
export interface RecentIds {
  /** Remembers `id`; false when it is remembered already. */
  add(id: string): boolean;
  readonly size: number;
}

/** Remembers the latest `max` ids; adding one more forgets the oldest. */
export function recentIds(max: number): RecentIds {
  const ids = new Set<string>();
  return {
    add(id) {
      if (ids.has(id)) return false;
      ids.add(id);
      if (ids.size > max) ids.delete(ids.values().next().value as string);
      return true;
    },
    get size() {
      return ids.size;
    },
  };
}
