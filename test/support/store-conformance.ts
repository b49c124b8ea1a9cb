/**
 * The `RunStore` contract as vitest tests, for any store: memory, file, Redis, Postgres.
 * Every test uses ids of its own, so a factory may hand out stores that share one backend.
 */
import { randomUUID } from "node:crypto";
import type { RunState, RunStore, RunStoreOptions } from "tollgate";
import { describe, expect, it } from "vitest";

/** Makes a store to test; it must honour `leaseMs` when given (the expiry tests pass a short one). */
export type MakeStore = (options?: RunStoreOptions) => RunStore | Promise<RunStore>;

/** Options of `runStoreConformance`. */
export interface StoreConformanceOptions {
  /** The lease length (ms) of the expiry and renewal tests: room for a few store calls (default 300). */
  shortLeaseMs?: number;
  /** How many callers race in the concurrency tests (default 12). */
  racers?: number;
}

/**
 * Registers a `describe` block that checks `makeStore`'s stores against the `RunStore`
 * contract: states, leases with fencing tokens, expiry, claims, and races between callers.
 *
 * @example
 * runStoreConformance("fileRunStore", (options) => fileRunStore(tempDir(), options));
 */
export function runStoreConformance(
  name: string,
  makeStore: MakeStore,
  options: StoreConformanceOptions = {},
): void {
  const shortLeaseMs = options.shortLeaseMs ?? 300;
  const racers = options.racers ?? 12;
  const shortLived = () => makeStore({ leaseMs: shortLeaseMs });

  describe(`${name} keeps the RunStore contract`, () => {
    describe("states", () => {
      it("get of an unknown run is undefined", async () => {
        const store = await makeStore();
        expect(await store.get(uniqueId("unknown"))).toBeUndefined();
      });

      it("put then get gives the state back, and later changes to the object do not leak in", async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const state = stateOf(runId, "first");
        expect(await store.put(state, await leaseOf(store, runId))).toBe(true);
        const written = structuredClone(state);
        state.messages.push({ role: "user", content: "changed after put" });
        expect(await store.get(runId)).toEqual(written);
      });

      it("a later put replaces the state, and other runs are untouched", async () => {
        const store = await makeStore();
        const [runId, otherId] = [uniqueId("run"), uniqueId("other")];
        const lease = await leaseOf(store, runId);
        await store.put(stateOf(runId, "first"), lease);
        const second = stateOf(runId, "second");
        expect(await store.put(second, lease)).toBe(true);
        expect(await store.get(runId)).toEqual(second);
        expect(await store.get(otherId)).toBeUndefined();
      });

      it("ids that differ only in case are different runs and different claims", async () => {
        const store = await makeStore();
        const runId = uniqueId("Case");
        const upper = stateOf(runId, "upper");
        const lower = stateOf(runId.toLowerCase(), "lower");
        await store.put(upper, await leaseOf(store, upper.runId));
        await store.put(lower, await leaseOf(store, lower.runId));
        expect(await store.get(upper.runId)).toEqual(upper);
        expect(await store.get(lower.runId)).toEqual(lower);
        expect(await store.claim(`${runId}-state`)).toBe(true);
        expect(await store.claim(`${runId}-state`.toLowerCase())).toBe(true);
      });

      it("a very long id works for states, leases and claims", async () => {
        const store = await makeStore();
        const runId = `${uniqueId("long")}-${"ü".repeat(2_000)}`;
        const state = stateOf(runId, "long");
        expect(await store.put(state, await leaseOf(store, runId))).toBe(true);
        expect(await store.get(runId)).toEqual(state);
        expect(await store.get(runId.slice(0, -1))).toBeUndefined();
        expect(await store.claim(runId)).toBe(true);
        expect(await store.claim(runId)).toBe(false);
        expect(await store.claim(`${runId}!`)).toBe(true);
      });
    });

    describe("leases", () => {
      it("acquire gives a token greater than every earlier one of the run", async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const tokens: number[] = [];
        for (let i = 0; i < 3; i++) {
          const lease = await leaseOf(store, runId);
          expect(lease.runId).toBe(runId);
          tokens.push(lease.token);
          await store.release(lease);
        }
        expect(tokens.every((token) => Number.isSafeInteger(token))).toBe(true);
        expect(tokens[1]).toBeGreaterThan(tokens[0]!);
        expect(tokens[2]).toBeGreaterThan(tokens[1]!);
      });

      it("a second acquire while the lease is live gives undefined; other runs are free", async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        await leaseOf(store, runId);
        expect(await store.acquire(runId)).toBeUndefined();
        expect(await store.acquire(uniqueId("other"))).toBeDefined();
      });

      it("after release, acquire succeeds with a greater token", async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const first = await leaseOf(store, runId);
        await store.release(first);
        const second = await leaseOf(store, runId);
        expect(second.token).toBeGreaterThan(first.token);
      });

      it("after the lease expires, acquire succeeds with a greater token", async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const first = await leaseOf(store, runId);
        expect(await store.acquire(runId)).toBeUndefined();
        await sleep(shortLeaseMs * 1.5);
        const second = await leaseOf(store, runId);
        expect(second.token).toBeGreaterThan(first.token);
      });

      it("renew keeps a lease live past its first expiry", async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const lease = await leaseOf(store, runId);
        await sleep(shortLeaseMs * 0.6);
        expect(await store.renew(lease)).toBe(true);
        await sleep(shortLeaseMs * 0.6);
        expect(await store.acquire(runId)).toBeUndefined();
      });

      it("renew of a superseded lease is false, and the new lease stays live", async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        await sleep(shortLeaseMs * 1.5);
        const current = await leaseOf(store, runId);
        expect(await store.renew(stale)).toBe(false);
        expect(await store.renew(current)).toBe(true);
        expect(await store.acquire(runId)).toBeUndefined();
      });

      it("release of a superseded lease leaves the new lease alone", async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        await sleep(shortLeaseMs * 1.5);
        await leaseOf(store, runId);
        await store.release(stale);
        expect(await store.acquire(runId)).toBeUndefined();
      });
    });

    describe("fencing", () => {
      it("put with a superseded lease returns false and does not change what get returns", async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        const kept = stateOf(runId, "kept");
        expect(await store.put(kept, stale)).toBe(true);
        await sleep(shortLeaseMs * 1.5);
        const current = await leaseOf(store, runId);
        expect(await store.put(stateOf(runId, "from the stale owner"), stale)).toBe(false);
        expect(await store.get(runId)).toEqual(kept);
        const next = stateOf(runId, "from the new owner");
        expect(await store.put(next, current)).toBe(true);
        expect(await store.get(runId)).toEqual(next);
      });

      it("put with a lease of another run returns false and writes nothing", async () => {
        const store = await makeStore();
        const [runId, otherId] = [uniqueId("run"), uniqueId("other")];
        const lease = await leaseOf(store, otherId);
        expect(await store.put(stateOf(runId, "wrong lease"), lease)).toBe(false);
        expect(await store.get(runId)).toBeUndefined();
        expect(await store.get(otherId)).toBeUndefined();
      });
    });

    describe("claims", () => {
      it("claim is true once, then false; another state's claim is separate", async () => {
        const store = await makeStore();
        const stateId = uniqueId("state");
        expect(await store.claim(stateId)).toBe(true);
        expect(await store.claim(stateId)).toBe(false);
        expect(await store.claim(uniqueId("state"))).toBe(true);
      });
    });

    describe("races", () => {
      it(`${racers} concurrent acquires of one run give exactly one lease`, async () => {
        const store = await makeStore();
        const runId = uniqueId("race");
        const leases = await Promise.all(times(racers, () => store.acquire(runId)));
        expect(leases.filter((lease) => lease !== undefined)).toHaveLength(1);
      });

      it(`${racers} concurrent claims of one state give exactly one true`, async () => {
        const store = await makeStore();
        const stateId = uniqueId("race");
        const claims = await Promise.all(times(racers, () => store.claim(stateId)));
        expect(claims.filter(Boolean)).toHaveLength(1);
      });

      it("concurrent puts with the live lease and a superseded one: only the live lease's land", async () => {
        const store = await shortLived();
        const runId = uniqueId("race");
        const stale = await leaseOf(store, runId);
        await sleep(shortLeaseMs * 1.5);
        const current = await leaseOf(store, runId);
        const states = times(racers, (i) => stateOf(runId, `put ${i}`));
        const puts = states.map((state, i) => store.put(state, i % 2 === 0 ? current : stale));
        expect(await Promise.all(puts)).toEqual(times(racers, (i) => i % 2 === 0));
        const last = await store.get(runId);
        const written = states.findIndex((state) => state.stateId === last?.stateId);
        expect(written).toBeGreaterThanOrEqual(0);
        expect(written % 2).toBe(0);
      });
    });
  });
}

/**
 * A minimal state for a run. Stores keep states as opaque JSON, so this is not a full `RunState`
 * (the cast keeps the suite independent of the state's schema version); the text has quotes,
 * escapes and non-ASCII to catch lossy encodings.
 */
export function stateOf(runId: string, note: string): RunState {
  const state = {
    version: 1,
    stateId: randomUUID(),
    runId,
    status: "needs_approval",
    messages: [{ role: "user", content: `${note}: ünïcode ✓ "quotes" \\ back\nslash` }],
    steps: [],
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  };
  return state as unknown as RunState;
}

/** Acquires a lease the test needs, failing the test when the store refuses. */
async function leaseOf(store: RunStore, runId: string) {
  const lease = await store.acquire(runId);
  if (!lease) throw new Error(`acquire(${JSON.stringify(runId)}) gave no lease`);
  return lease;
}

/** An id no other test (or earlier run against a shared backend) uses. */
function uniqueId(label: string): string {
  return `${label}-${randomUUID()}`;
}

/** `count` values made by `make(i)`. */
function times<T>(count: number, make: (i: number) => T): T[] {
  return Array.from({ length: count }, (_, i) => make(i));
}

/** Waits `ms` milliseconds. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
