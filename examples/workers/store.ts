/**
 * The run store all workers share: one place to change to move the pool onto another store
 * (`tollgate/postgres`, or `tollgate/file-store` on one machine). Every worker must use the same.
 */
import type { FullRunStore } from "tollgate";
import { type RedisClient, redisRunStore } from "tollgate/redis";

/** How the workers share their store. */
export interface SharedStoreOptions {
  /** How long a crashed worker's lease still holds its run, in ms. */
  leaseMs: number;
  /** Put before every key of the store (default `"tollgate:"`). */
  prefix?: string;
}

/** The store every worker of the pool uses: runs in Redis, beside the queue. */
export function sharedStore(
  redis: RedisClient,
  { leaseMs, prefix }: SharedStoreOptions,
): FullRunStore {
  return redisRunStore(redis, prefix === undefined ? { leaseMs } : { leaseMs, prefix });
}
