import { isPlainObject, kindOf } from "../util/values.js";

/**
 * The part of an ioredis client the Redis store uses, written out so the published types need no
 * ioredis: `eval` (every read-modify-write is one Lua script) and `get`. An ioredis 5 or 6
 * `Redis` (or `Cluster`) fits.
 */
export interface RedisClient {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/**
 * Checks that `redis` looks like an ioredis client, else a TypeError naming what it got. A
 * node-redis client (v4 or v5) has `eval` and `get` too, but other signatures: it is told apart by
 * what only node-redis has (`sendCommand` with an `isOpen` flag) and what only ioredis has
 * (`defineCommand`, lower-case `evalsha`), and refused before its first script fails.
 */
export function checkedClient(where: string, redis: unknown): RedisClient {
  const client = redis as Partial<RedisClient> | null;
  if (isNodeRedis(redis)) {
    throw new TypeError(
      `${where}: give an ioredis client (ioredis 5 or 6); node-redis is not supported`,
    );
  }
  if (
    typeof client !== "object" ||
    client === null ||
    typeof client.eval !== "function" ||
    typeof client.get !== "function"
  ) {
    const got =
      typeof redis === "string"
        ? "a string (a connection URL?)"
        : isPlainObject(redis) && ("host" in redis || "port" in redis || "url" in redis)
          ? "a config object? wrap it in `new Redis(…)`"
          : typeof redis === "object" && redis !== null && !Array.isArray(redis)
            ? "an object without eval() and get()"
            : kindOf(redis);
    throw new TypeError(`${where}: give an ioredis client (new Redis(url)), not ${got}`);
  }
  return client as RedisClient;
}

/** Whether `value` has node-redis's shape (`createClient()` of `redis` / `@redis/client`). */
function isNodeRedis(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const client = value as Record<string, unknown>;
  return (
    typeof client.sendCommand === "function" &&
    "isOpen" in client &&
    typeof client.defineCommand !== "function" &&
    typeof client.evalsha !== "function"
  );
}
