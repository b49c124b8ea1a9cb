import type { FullRunStore, PendingRun, RunState, RunStoreOptions } from "tollgate";
// Pure helpers from util/ (no core state, no classes) are bundled into each entry.
import { lostRunData } from "../util/fencing-token.js";
import { leaseMsOf } from "../util/lease-ms.js";
import { checkKeys, shownValue } from "../util/option-keys.js";
import {
  cursorOf,
  isPausedStatus,
  listPendingOptions,
  type PendingEntry,
  pendingRunOf,
} from "../util/pending-page.js";
import { checkedId, checkedLease } from "../util/store-args.js";
import { checkedClient, type RedisClient } from "./client.js";
import { claimKey, pendingKey, type RunKeys, runKeys } from "./keys.js";
import { ACQUIRE, CLAIM, DELETE, INDEX, PAGE, PUT, RELEASE, RENEW } from "./scripts.js";

/** Options of `redisRunStore`. */
export interface RedisRunStoreOptions extends RunStoreOptions {
  /** Put before every key of the store, to share one Redis with other apps or stores (default `"tollgate:"`). */
  prefix?: string;
  /**
   * How long a finished run's state (completed, failed, stopped, …) stays, in ms (default 7 days).
   * Paused and running states never expire.
   */
  finishedTtlMs?: number;
}

/** The name errors of `redisRunStore` start with. */
const WHERE = "redisRunStore";
const OPTIONS = ["leaseMs", "prefix", "finishedTtlMs"] as const;
const DEFAULT_FINISHED_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A `RunStore` in Redis, through your ioredis client (you own it: you connect and `quit()` it).
 * Safe for any number of processes and hosts, with no synced clocks: a lease is a key that
 * expires by Redis's own clock (`SET NX PX`), and `renew`, `release`, `put` and `delete` are Lua
 * scripts that check the run's fencing token, which never expires and only grows, also across
 * a Redis that lost it (a new token is at least Redis's `TIME` in microseconds); a `renew` or
 * `put` that finds the token gone rejects, saying the store lost the run's data. A
 * claim is a `SET NX` key that never expires, so a state resumes once, ever. Finished states
 * expire after `finishedTtlMs`; paused and running ones never do. `listPending` reads a sorted
 * set of paused runs, ordered by `updatedAt` (by Redis's clock).
 *
 * Redis Cluster: the keys of one run share a hash tag (`{run:<runId>}`), so every script touches one
 * slot and runs spread over the shards. The pending index is one key for the whole store, so it
 * lives on one shard; it is written beside a run's script (listed before a paused state is
 * written, taken off after any other), not in it, and `listPending` skips an entry whose run
 * is not paused. Errors of Redis (connection refused, a closed client, a script error) are
 * rejections.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL);
 * const loop = new AgentLoop({ provider, tools, store: redisRunStore(redis) });
 */
export function redisRunStore(redis: RedisClient, options?: RedisRunStoreOptions): FullRunStore {
  const client = checkedClient(WHERE, redis);
  if (options !== undefined) checkKeys(WHERE, options, OPTIONS);
  const ttlMs = leaseMsOf(WHERE, options);
  const prefix = prefixOf(options?.prefix);
  const finishedMs = finishedTtlOf(options?.finishedTtlMs);
  const index = pendingKey(prefix);
  const keysOf = (runId: string): RunKeys => runKeys(prefix, runId);

  /** Runs a script on one run's keys. */
  const onRun = (script: string, keys: RunKeys, ...args: (string | number)[]) =>
    client.eval(script, 3, keys.state, keys.lease, keys.token, ...args);
  const indexRun = (runId: string, paused: boolean) =>
    client.eval(INDEX, 1, index, runId, paused ? "1" : "");

  const store: FullRunStore = {
    async get(runId) {
      const text = await client.get(keysOf(checkedId(WHERE, "get", runId)).state);
      return text === null ? undefined : parseState(text, runId);
    },
    async acquire(runId) {
      const answer = await onRun(ACQUIRE, keysOf(checkedId(WHERE, "acquire", runId)), ttlMs);
      if (answer === null) return undefined;
      return { runId, token: tokenOf(answer), ttlMs };
    },
    async renew(lease) {
      const { runId, token } = checkedLease(WHERE, "renew", lease);
      return fenced("renew", runId, await onRun(RENEW, keysOf(runId), token, ttlMs));
    },
    async put(state, lease) {
      const { runId, token } = checkedLease(WHERE, "put", lease);
      if (state?.runId !== runId) return false;
      const text = JSON.stringify(state);
      const paused = isPausedStatus(state.status);
      // Listed before the state is written: every paused state has its entry.
      if (paused) await indexRun(runId, true);
      const ttl = paused || state.status === "running" ? "" : finishedMs;
      const wrote = fenced("put", runId, await onRun(PUT, keysOf(runId), token, text, ttl));
      // Taken off after: an entry left by a crash between is skipped by listPending.
      if (wrote && !paused) await indexRun(runId, false);
      return wrote;
    },
    async release(lease) {
      const { runId, token } = checkedLease(WHERE, "release", lease);
      await onRun(RELEASE, keysOf(runId), token);
    },
    async claim(stateId) {
      const key = claimKey(prefix, checkedId(WHERE, "claim", stateId));
      return yesOrNo("claim", await client.eval(CLAIM, 1, key));
    },
    async listPending(options) {
      const { limit, after } = listPendingOptions(WHERE, options);
      const runs: PendingRun[] = [];
      let offset = 0;
      let last: PendingEntry | undefined;
      for (;;) {
        const batch = await pageOf(client, index, after, offset, limit + 1);
        if (batch.length === 0) return { runs };
        offset += batch.length;
        const fresh = batch.filter((entry) => after === undefined || isAfter(entry, after));
        const texts = await Promise.all(fresh.map(({ runId }) => client.get(keysOf(runId).state)));
        for (const [i, entry] of fresh.entries()) {
          if (runs.length === limit) return { runs, cursor: cursorOf(last as PendingEntry) };
          last = entry;
          const text = texts[i];
          const state = text == null ? undefined : parseState(text, entry.runId);
          if (state?.runId === entry.runId && isPausedStatus(state.status)) {
            runs.push(pendingRunOf(state, entry.updatedAt));
          }
        }
      }
    },
    async delete(runId) {
      // Taken like any owner takes the run: false while another lease is live; while it is held,
      // no resume (each acquires first) and no stale owner's write (fenced) can come between.
      const lease = await store.acquire(checkedId(WHERE, "delete", runId));
      if (!lease) return false;
      const text = await client.get(keysOf(runId).state);
      // The state goes, and with it every copy of it: a signed copy held by a browser or a
      // queue must not resume a run that was deleted.
      if (text !== null) await store.claim(parseState(text, runId).stateId);
      const removed = yesOrNo("delete", await onRun(DELETE, keysOf(runId), lease.token));
      if (removed) await indexRun(runId, false);
      return removed;
    },
  };
  return store;
}

/** One batch of the pending index from `offset`, at or after the cursor's score. */
async function pageOf(
  client: RedisClient,
  index: string,
  after: PendingEntry | undefined,
  offset: number,
  count: number,
): Promise<PendingEntry[]> {
  const min = after === undefined ? "-inf" : String(after.updatedAt);
  const flat = await client.eval(PAGE, 1, index, min, offset, count);
  if (!Array.isArray(flat) || flat.length % 2 !== 0) {
    throw new Error(`${WHERE}.listPending: Redis answered ${typeof flat} for the pending index`);
  }
  const entries: PendingEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const updatedAt = Number(flat[i + 1]);
    if (typeof flat[i] !== "string" || !Number.isFinite(updatedAt)) {
      throw new Error(`${WHERE}.listPending: the pending index holds an entry that is not a run`);
    }
    entries.push({ runId: flat[i], updatedAt });
  }
  return entries;
}

/** Whether an entry comes after the cursor's, in Redis's order (score, then the id's UTF-8 bytes). */
function isAfter(entry: PendingEntry, after: PendingEntry): boolean {
  if (entry.updatedAt !== after.updatedAt) return entry.updatedAt > after.updatedAt;
  return compareBytes(entry.runId, after.runId) > 0;
}

const encoder = new TextEncoder();

/** Compares two strings by their UTF-8 bytes, as Redis orders equal scores. */
function compareBytes(a: string, b: string): number {
  const [x, y] = [encoder.encode(a), encoder.encode(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

function prefixOf(prefix: unknown): string {
  if (prefix === undefined) return "tollgate:";
  if (typeof prefix !== "string" || prefix === "") {
    throw new TypeError(`${WHERE}: prefix must be a non-empty string, like "tollgate:"`);
  }
  return prefix;
}

function finishedTtlOf(ms: unknown): number {
  if (ms === undefined) return DEFAULT_FINISHED_TTL_MS;
  if (!Number.isSafeInteger(ms) || (ms as number) < 1) {
    throw new TypeError(
      `${WHERE}: finishedTtlMs must be a positive whole number of milliseconds, as leaseMs is, not ${shownValue(ms)}`,
    );
  }
  return ms as number;
}

/** A script's answer of 1 or 0; anything else is an error, never a quiet false. */
function yesOrNo(method: string, answer: unknown): boolean {
  if (answer === 1) return true;
  if (answer === 0) return false;
  throw new Error(`${WHERE}.${method}: Redis answered ${String(answer)}, not 1 or 0`);
}

/**
 * A fenced script's answer: 1 or 0 as `yesOrNo`; -1 (the run has no token) rejects, saying that
 * Redis lost the run's data: the lease was not taken over, it was forgotten.
 */
function fenced(method: string, runId: string, answer: unknown): boolean {
  if (answer !== -1) return yesOrNo(method, answer);
  throw lostRunData(
    WHERE,
    method,
    `Redis has no fencing token for run ${runId} any more (it restarted without persistence, was flushed, or evicted the key)`,
    "keep Redis's data (appendonly yes, maxmemory-policy noeviction)",
  );
}

function tokenOf(answer: unknown): number {
  if (Number.isSafeInteger(answer) && (answer as number) > 0) return answer as number;
  throw new Error(`${WHERE}.acquire: Redis answered ${String(answer)}, not a fencing token`);
}

function parseState(text: string, runId: string): RunState {
  try {
    return JSON.parse(text) as RunState;
  } catch (error) {
    throw new Error(`${WHERE}: the state of run ${runId} in Redis is not valid JSON`, {
      cause: error,
    });
  }
}
