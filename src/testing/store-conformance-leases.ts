import type { RunLease } from "tollgate";
import {
  type CheckContext,
  ensure,
  ensureEqual,
  ensureRejects,
  leaseOf,
  type StoreCheck,
  show,
  sleep,
  stateOf,
  times,
  uniqueId,
} from "./store-conformance-support.js";

/** The checks of states, leases, fencing, claims and races: what the loop relies on. */
export function leaseChecks({
  makeStore,
  shortLived,
  shortLeaseMs,
  racers,
  afterLoss,
}: CheckContext): StoreCheck[] {
  const expired = () => sleep(shortLeaseMs * 1.5);
  return [
    {
      name: "states: get of an unknown run is undefined",
      run: async () => {
        const store = await makeStore();
        ensureEqual(await store.get(uniqueId("unknown")), undefined, "get of an unknown run");
      },
    },
    {
      name: "states: an id that is not a string, or a lease acquire never gave, is refused",
      run: async () => {
        const store = await makeStore();
        for (const id of [5, undefined, null, ["run"]]) {
          await ensureRejects(store.get(id as never), `get(${show(id)})`);
          await ensureRejects(store.acquire(id as never), `acquire(${show(id)})`);
          await ensureRejects(store.claim(id as never), `claim(${show(id)})`);
        }
        const runId = uniqueId("run");
        await leaseOf(store, runId);
        for (const token of ["1", 0, 1.5, Number.NaN]) {
          const forged = { runId, token, ttlMs: 1000 } as never;
          const wrote = await store.put(stateOf(runId, "forged"), forged).catch(() => false);
          ensureEqual(wrote, false, `put with a lease whose token is ${show(token)}`);
        }
        ensureEqual(await store.get(runId), undefined, "the state after puts with forged leases");
      },
    },
    {
      name: "states: put then get gives the state back, and later changes to the object do not leak in",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const state = stateOf(runId, "first");
        ensureEqual(await store.put(state, await leaseOf(store, runId)), true, "put");
        const written = structuredClone(state);
        state.messages.push({ role: "user", content: "changed after put" });
        ensureEqual(await store.get(runId), written, "get after put");
      },
    },
    {
      name: "states: a later put replaces the state, and other runs are untouched",
      run: async () => {
        const store = await makeStore();
        const [runId, otherId] = [uniqueId("run"), uniqueId("other")];
        const lease = await leaseOf(store, runId);
        await store.put(stateOf(runId, "first"), lease);
        const second = stateOf(runId, "second");
        ensureEqual(await store.put(second, lease), true, "the second put");
        ensureEqual(await store.get(runId), second, "get after the second put");
        ensureEqual(await store.get(otherId), undefined, "get of another run");
      },
    },
    {
      name: "states: ids that differ only in case are different runs and different claims",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("Case");
        const upper = stateOf(runId, "upper");
        const lower = stateOf(runId.toLowerCase(), "lower");
        await store.put(upper, await leaseOf(store, upper.runId));
        await store.put(lower, await leaseOf(store, lower.runId));
        ensureEqual(await store.get(upper.runId), upper, "get of the upper-case id");
        ensureEqual(await store.get(lower.runId), lower, "get of the lower-case id");
        ensureEqual(await store.claim(`${runId}-state`), true, "claim of the upper-case id");
        ensureEqual(
          await store.claim(`${runId}-state`.toLowerCase()),
          true,
          "claim of the lower-case id",
        );
      },
    },
    {
      name: "states: a very long id works for states, leases and claims",
      run: async () => {
        const store = await makeStore();
        const runId = `${uniqueId("long")}-${"ü".repeat(2_000)}`;
        const state = stateOf(runId, "long");
        ensureEqual(await store.put(state, await leaseOf(store, runId)), true, "put");
        ensureEqual(await store.get(runId), state, "get");
        ensureEqual(await store.get(runId.slice(0, -1)), undefined, "get of the id one shorter");
        ensureEqual(await store.claim(runId), true, "the first claim");
        ensureEqual(await store.claim(runId), false, "the second claim");
        ensureEqual(await store.claim(`${runId}!`), true, "claim of the id one longer");
      },
    },
    {
      name: "leases: acquire gives a token greater than every earlier one of the run",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const tokens: number[] = [];
        for (let i = 0; i < 3; i++) {
          const lease = await leaseOf(store, runId);
          ensureEqual(lease.runId, runId, "the lease's runId");
          tokens.push(lease.token);
          await store.release(lease);
        }
        ensure(
          tokens.every((token) => Number.isSafeInteger(token)),
          `tokens must be safe integers, got ${show(tokens)}`,
        );
        ensure(
          (tokens[0] as number) < (tokens[1] as number) &&
            (tokens[1] as number) < (tokens[2] as number),
          `tokens must grow, got ${show(tokens)}`,
        );
      },
    },
    {
      name: "leases: a second acquire while the lease is live gives undefined; other runs are free",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        await leaseOf(store, runId);
        ensureEqual(await store.acquire(runId), undefined, "a second acquire of a held run");
        ensure(await store.acquire(uniqueId("other")), "acquire of another run gave no lease");
      },
    },
    {
      name: "leases: after release, acquire succeeds with a greater token",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const first = await leaseOf(store, runId);
        await store.release(first);
        const second = await leaseOf(store, runId);
        ensureGreater(second.token, first.token);
      },
    },
    {
      name: "leases: after the lease expires, acquire succeeds with a greater token",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const first = await leaseOf(store, runId);
        ensureEqual(await store.acquire(runId), undefined, "acquire of a held run");
        await expired();
        const second = await leaseOf(store, runId);
        ensureGreater(second.token, first.token);
      },
    },
    {
      name: "leases: renew keeps a lease live past its first expiry",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const lease = await leaseOf(store, runId);
        await sleep(shortLeaseMs * 0.6);
        ensureEqual(await store.renew(lease), true, "renew of the live lease");
        await sleep(shortLeaseMs * 0.6);
        ensureEqual(await store.acquire(runId), undefined, "acquire of a renewed run");
      },
    },
    {
      name: "leases: renew of a superseded lease is false, and the new lease stays live",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        await expired();
        const current = await leaseOf(store, runId);
        ensureEqual(await store.renew(stale), false, "renew of the superseded lease");
        ensureEqual(await store.renew(current), true, "renew of the current lease");
        ensureEqual(await store.acquire(runId), undefined, "acquire of a held run");
      },
    },
    {
      name: "leases: release of a superseded lease leaves the new lease alone",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        await expired();
        await leaseOf(store, runId);
        await store.release(stale);
        ensureEqual(await store.acquire(runId), undefined, "acquire of a held run");
      },
    },
    {
      name: "fencing: put with a superseded lease returns false and does not change what get returns",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("run");
        const stale = await leaseOf(store, runId);
        const kept = stateOf(runId, "kept");
        ensureEqual(await store.put(kept, stale), true, "put with the live lease");
        await expired();
        const current = await leaseOf(store, runId);
        const late = stateOf(runId, "from the stale owner");
        ensureEqual(await store.put(late, stale), false, "put with the superseded lease");
        ensureEqual(await store.get(runId), kept, "get after the refused put");
        const next = stateOf(runId, "from the new owner");
        ensureEqual(await store.put(next, current), true, "put with the current lease");
        ensureEqual(await store.get(runId), next, "get after the new owner's put");
      },
    },
    {
      name: "fencing: put with a lease of another run returns false and writes nothing",
      run: async () => {
        const store = await makeStore();
        const [runId, otherId] = [uniqueId("run"), uniqueId("other")];
        const lease = await leaseOf(store, otherId);
        ensureEqual(await store.put(stateOf(runId, "wrong lease"), lease), false, "put");
        ensureEqual(await store.get(runId), undefined, "get of the state's run");
        ensureEqual(await store.get(otherId), undefined, "get of the lease's run");
      },
    },
    {
      name: "fencing: a token after the store lost a run is still greater than every token handed out before, and the old lease writes nothing",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const tokens: number[] = [];
        let stale: RunLease | undefined;
        for (let i = 0; i < 3; i++) {
          stale = await leaseOf(store, runId);
          tokens.push(stale.token);
          await store.release(stale);
        }
        const forgetful = await afterLoss(store);
        const next = await leaseOf(forgetful, runId);
        ensure(
          next.token > Math.max(...tokens),
          `after the store lost the run, acquire gave token ${next.token}, not greater than the tokens before (${show(tokens)}): a stalled owner's writes would pass`,
        );
        const late = stateOf(runId, "from the owner before the loss");
        const wrote = await forgetful.put(late, stale as RunLease).catch(() => false);
        ensureEqual(wrote, false, "put with a lease from before the loss");
        ensureEqual(await forgetful.get(runId), undefined, "get after the refused put");
        ensureEqual(
          await forgetful.put(stateOf(runId, "new"), next),
          true,
          "put with the new lease",
        );
      },
    },
    {
      name: "claims: claim is true once, then false; another state's claim is separate",
      run: async () => {
        const store = await makeStore();
        const stateId = uniqueId("state");
        ensureEqual(await store.claim(stateId), true, "the first claim");
        ensureEqual(await store.claim(stateId), false, "the second claim");
        ensureEqual(await store.claim(uniqueId("state")), true, "claim of another state");
      },
    },
    {
      name: `races: ${racers} concurrent acquires of one run give exactly one lease`,
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("race");
        const leases = await Promise.all(times(racers, () => store.acquire(runId)));
        ensureEqual(leases.filter((lease) => lease !== undefined).length, 1, "leases given");
      },
    },
    {
      name: `races: ${racers} concurrent claims of one state give exactly one true`,
      run: async () => {
        const store = await makeStore();
        const stateId = uniqueId("race");
        const claims = await Promise.all(times(racers, () => store.claim(stateId)));
        ensureEqual(claims.filter(Boolean).length, 1, "claims that succeeded");
      },
    },
    {
      name: "races: concurrent puts with the live lease and a superseded one: only the live lease's land",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("race");
        const stale = await leaseOf(store, runId);
        await expired();
        const current = await leaseOf(store, runId);
        const states = times(racers, (i) => stateOf(runId, `put ${i}`));
        const puts = states.map((state, i) => store.put(state, i % 2 === 0 ? current : stale));
        ensureEqual(
          await Promise.all(puts),
          times(racers, (i) => i % 2 === 0),
          "the puts' answers",
        );
        const last = await store.get(runId);
        const written = states.findIndex((state) => state.stateId === last?.stateId);
        ensure(written >= 0, `get gave a state no put wrote: ${show(last)}`);
        ensure(
          written % 2 === 0,
          `get gave put ${written}'s state, written with the superseded lease`,
        );
      },
    },
  ];
}

function ensureGreater(later: number, earlier: number): void {
  ensure(
    later > earlier,
    `the later token (${later}) must be greater than the earlier (${earlier})`,
  );
}
