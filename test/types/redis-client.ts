// Type tests of tollgate/redis: the store takes a real ioredis Redis (typed structurally, so the
// published types need no ioredis), and refuses a connection URL or an options object.
import { Redis } from "ioredis";
import { redisRunStore } from "tollgate/redis";

const redis = new Redis({ lazyConnect: true });
redisRunStore(redis);
redisRunStore(redis, { leaseMs: 10_000, prefix: "app:runs:", finishedTtlMs: 86_400_000 });

// @ts-expect-error a connection URL is not a client: give an ioredis Redis
redisRunStore("redis://127.0.0.1:6379");
// @ts-expect-error nor is the client's config
redisRunStore({ host: "127.0.0.1", port: 6379 });
// @ts-expect-error an unknown option
redisRunStore(redis, { ttl: 5 });
// @ts-expect-error finishedTtlMs is a number of ms
redisRunStore(redis, { finishedTtlMs: "7d" });
