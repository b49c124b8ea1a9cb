/**
 * `tollgate/redis`: a `RunStore` in Redis, through your ioredis client (an optional peer).
 * @module
 */
export type { RedisClient } from "./client.js";
export { type RedisRunStoreOptions, redisRunStore } from "./store.js";
