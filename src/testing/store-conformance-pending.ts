import type { PendingRun, RunState, RunStore } from "tollgate";
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

/** The checks of `listPending` and `delete`: what an approval inbox and cleanup jobs rely on. */
export function pendingChecks({ makeStore, shortLived, shortLeaseMs }: CheckContext): StoreCheck[] {
  return [
    {
      name: "listPending: a paused run is listed with its status, stateId, calls and updatedAt",
      run: async () => {
        const store = await makeStore();
        const approval = pausedState("approval");
        const results = stateOf(uniqueId("results"), "results", {
          status: "needs_results",
          external: [{ toolCallId: "c2", toolName: "pick_file", args: {}, digest: "d2" }],
        });
        for (const state of [approval, results]) await putState(store, state);
        const listed = await listedRuns(store, [approval.runId, results.runId]);
        for (const state of [approval, results]) {
          const run = listed.get(state.runId);
          ensure(run, `listPending does not list paused run ${state.runId}`);
          const { updatedAt, ...rest } = run;
          ensureEqual(rest, expectedRun(state), `listPending's entry for ${state.runId}`);
          ensure(
            Number.isFinite(updatedAt) && updatedAt > 0,
            `updatedAt must be ms since the epoch, got ${show(updatedAt)}`,
          );
        }
      },
    },
    {
      name: "listPending: a run leaves the list when it goes on or ends, and is back when it pauses again",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("run");
        const lease = await leaseOf(store, runId);
        const listed = async () => (await listedRuns(store, [runId])).get(runId);
        const first = pausedState("first", runId);
        await store.put(first, lease);
        const before = await listed();
        ensure(before, "listPending does not list the paused run");
        await store.put(stateOf(runId, "running", { status: "running" }), lease);
        ensureEqual(await listed(), undefined, "listPending's entry for a running run");
        const again = pausedState("again", runId);
        await store.put(again, lease);
        const after = await listed();
        ensureEqual(after?.stateId, again.stateId, "the listed stateId after a second pause");
        ensure(
          (after?.updatedAt ?? 0) >= before.updatedAt,
          `updatedAt went back: ${before.updatedAt}, then ${show(after?.updatedAt)}`,
        );
        await store.put(stateOf(runId, "done", { status: "completed" }), lease);
        ensureEqual(await listed(), undefined, "listPending's entry for a completed run");
      },
    },
    {
      name: "listPending: pages of `limit` runs, followed by `cursor`, list every paused run once, oldest first",
      run: async () => {
        const store = await makeStore();
        const states = times(5, (i) => pausedState(`paged ${i}`));
        for (const state of states) await putState(store, state);
        const seen: PendingRun[] = [];
        let cursor: string | undefined;
        for (let page = 0; ; page++) {
          ensure(page < 100_000, "listPending keeps giving a cursor");
          const answer = await list(store, {
            limit: 2,
            ...(cursor === undefined ? {} : { cursor }),
          });
          ensure(answer.runs.length <= 2, `a page of limit 2 has ${answer.runs.length} runs`);
          seen.push(...answer.runs);
          if (answer.cursor === undefined) break;
          ensure(answer.cursor !== cursor, "listPending gave the same cursor twice");
          cursor = answer.cursor;
        }
        for (const state of states) {
          const count = seen.filter((run) => run.runId === state.runId).length;
          ensureEqual(count, 1, `how often paused run ${state.runId} is listed`);
        }
        for (let i = 1; i < seen.length; i++) {
          const [a, b] = [seen[i - 1] as PendingRun, seen[i] as PendingRun];
          ensure(
            a.updatedAt < b.updatedAt || (a.updatedAt === b.updatedAt && a.runId < b.runId),
            `listPending's order: ${show([a.updatedAt, a.runId])} came before ${show([b.updatedAt, b.runId])}`,
          );
        }
      },
    },
    {
      name: "listPending: a bad limit or cursor is refused",
      run: async () => {
        const store = await makeStore();
        for (const limit of [0, -1, 1.5, Number.NaN]) {
          await ensureRejects(list(store, { limit }), `listPending({ limit: ${limit} })`);
        }
        await ensureRejects(
          list(store, { cursor: "not a cursor" }),
          "listPending with a made-up cursor",
        );
        // A typo is not a page of the default size.
        await ensureRejects(list(store, { limt: 10 } as never), "listPending({ limt: 10 })");
      },
    },
    {
      name: "listPending: the answer is a copy; changing it changes nothing stored",
      run: async () => {
        const store = await makeStore();
        const state = pausedState("copy");
        await putState(store, state);
        const run = (await listedRuns(store, [state.runId])).get(state.runId);
        ensure(run, "listPending does not list the paused run");
        (run.pending[0] as { args: unknown }).args = { to: "someone else" };
        const again = (await listedRuns(store, [state.runId])).get(state.runId);
        ensureEqual(again?.pending, state.pending, "the pending calls listed again");
      },
    },
    {
      name: "delete: removes the state, drops the run from listPending, and the run can be taken again",
      run: async () => {
        const store = await makeStore();
        const state = pausedState("deleted");
        const lease = await putState(store, state);
        ensureEqual(await remove(store, state.runId), true, "delete of a released run");
        ensureEqual(await store.get(state.runId), undefined, "get after delete");
        ensureEqual(
          (await listedRuns(store, [state.runId])).get(state.runId),
          undefined,
          "listPending's entry after delete",
        );
        const next = await leaseOf(store, state.runId);
        ensure(
          next.token > lease.token,
          `the token after delete (${next.token}) must grow past ${lease.token}`,
        );
      },
    },
    {
      name: "delete: while another process holds a live lease it is false and changes nothing",
      run: async () => {
        const store = await makeStore();
        const runId = uniqueId("held");
        const lease = await leaseOf(store, runId);
        const state = pausedState("held", runId);
        await store.put(state, lease);
        ensureEqual(await remove(store, runId), false, "delete of a run under a live lease");
        ensureEqual(await store.get(runId), state, "get after the refused delete");
        ensureEqual(await store.renew(lease), true, "renew of the lease after the refused delete");
        ensureEqual(
          await store.put(stateOf(runId, "still mine"), lease),
          true,
          "put after the refused delete",
        );
      },
    },
    {
      name: "delete: an owner whose lease expired cannot write the run back",
      run: async () => {
        const store = await shortLived();
        const runId = uniqueId("expired");
        const stale = await leaseOf(store, runId);
        await store.put(pausedState("before", runId), stale);
        await sleep(shortLeaseMs * 1.5);
        ensureEqual(await remove(store, runId), true, "delete of a run whose lease expired");
        ensureEqual(
          await store.put(stateOf(runId, "late write"), stale),
          false,
          "put by the expired owner",
        );
        ensureEqual(await store.renew(stale), false, "renew by the expired owner");
        ensureEqual(await store.get(runId), undefined, "get after delete");
      },
    },
    {
      name: "delete: an id that is not a string is refused",
      run: async () => {
        const store = await makeStore();
        for (const id of [5, undefined, null, { runId: "x" }]) {
          await ensureRejects(remove(store, id as never), `delete(${show(id)})`);
        }
      },
    },
    {
      name: "delete: an unknown run is true; other runs and used claims stay",
      run: async () => {
        const store = await makeStore();
        ensureEqual(await remove(store, uniqueId("unknown")), true, "delete of an unknown run");
        const [gone, kept] = [pausedState("gone"), pausedState("kept")];
        await putState(store, gone);
        await putState(store, kept);
        ensureEqual(await store.claim(gone.stateId), true, "claim of the state");
        ensureEqual(await remove(store, gone.runId), true, "delete");
        ensureEqual(await store.get(kept.runId), kept, "get of another run after delete");
        ensureEqual(await store.claim(gone.stateId), false, "claim of a deleted run's used state");
      },
    },
    {
      name: "delete: the deleted state is used up, so no copy of it can resume the run",
      run: async () => {
        const store = await makeStore();
        const state = pausedState("deleted while it waited");
        await putState(store, state);
        ensureEqual(await remove(store, state.runId), true, "delete of a paused run");
        // A copy (signed, held by a browser or a queue) would resume by claiming this id.
        ensureEqual(await store.claim(state.stateId), false, "claim of the deleted state");
      },
    },
  ];
}

/** A paused state waiting for one approval. */
function pausedState(note: string, runId = uniqueId("paused")): RunState {
  return stateOf(runId, note, {
    status: "needs_approval",
    pending: [
      {
        toolCallId: "c1",
        toolName: "send_email",
        args: { to: "ana@example.com", body: "ünïcode ✓" },
        reason: "sends mail",
        digest: "d1",
      },
    ],
  });
}

/** What listPending should say of a paused state, but for `updatedAt`. */
function expectedRun(state: RunState): Omit<PendingRun, "updatedAt"> {
  return {
    runId: state.runId,
    stateId: state.stateId,
    status: state.status as PendingRun["status"],
    pending: state.pending ?? [],
    external: state.external ?? [],
  };
}

/** Writes a state under a fresh lease, then releases it (as a paused run's process does). */
async function putState(store: RunStore, state: RunState) {
  const lease = await leaseOf(store, state.runId);
  ensureEqual(await store.put(state, lease), true, `put of run ${state.runId}`);
  await store.release(lease);
  return lease;
}

/** The store's `listPending`, which the check needs. */
function list(store: RunStore, options?: { limit?: number; cursor?: string }) {
  ensure(typeof store.listPending === "function", "the store has no listPending()");
  return store.listPending(options);
}

/** The store's `delete`, which the check needs. */
function remove(store: RunStore, runId: string) {
  ensure(typeof store.delete === "function", "the store has no delete()");
  return store.delete(runId);
}

/** The listed runs among `runIds`, paging through every paused run of the store. */
async function listedRuns(store: RunStore, runIds: string[]): Promise<Map<string, PendingRun>> {
  const wanted = new Set(runIds);
  const found = new Map<string, PendingRun>();
  let cursor: string | undefined;
  for (let page = 0; page < 100_000; page++) {
    const answer = await list(store, cursor === undefined ? {} : { cursor });
    ensure(Array.isArray(answer?.runs), `listPending gave ${show(answer)}; give { runs, cursor? }`);
    for (const run of answer.runs) if (wanted.has(run.runId)) found.set(run.runId, run);
    if (answer.cursor === undefined) return found;
    cursor = answer.cursor;
  }
  throw new Error("listPending keeps giving a cursor");
}
