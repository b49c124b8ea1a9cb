/**
 * The part of an ioredis client the Redis store uses, written out so the published types need no
 * ioredis: `eval` (every read-modify-write is one Lua script) and `get`. An ioredis 5 or 6
 * `Redis` (or `Cluster`) fits.
 */
export interface RedisClient {
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/** Checks that `redis` looks like an ioredis client, else a TypeError naming what it got. */
export function checkedClient(where: string, redis: unknown): RedisClient {
  const client = redis as Partial<RedisClient> | null;
  if (
    typeof client !== "object" ||
    client === null ||
    typeof client.eval !== "function" ||
    typeof client.get !== "function"
  ) {
    const got =
      typeof redis === "string"
        ? "a string (a connection URL?)"
        : redis === null
          ? "null"
          : typeof redis === "object"
            ? "an object without eval() and get()"
            : `a ${typeof redis}`;
    throw new TypeError(`${where}: give an ioredis client (new Redis(url)), not ${got}`);
  }
  return client as RedisClient;
}
