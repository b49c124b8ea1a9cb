/**
 * runStoreConformance must catch stores that break the contract: each broken store here fails
 * the checks named for what it breaks, with a message that says what went wrong.
 */
import { memoryRunStore, type RunStore, type RunStoreOptions } from "tollgate";
import { runStoreConformance, type StoreCheck } from "tollgate/testing";
import { describe, expect, it } from "vitest";

/** The checks whose names start with `prefix`. */
const named = (checks: StoreCheck[], prefix: string) =>
  checks.filter((check) => check.name.startsWith(prefix));

/** What running a check gives: "passed", or its error's message. */
async function outcome(check: StoreCheck): Promise<string> {
  try {
    await check.run();
    return "passed";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("runStoreConformance", () => {
  it("gives uniquely named checks of every group", () => {
    const names = runStoreConformance(() => memoryRunStore()).map((check) => check.name);
    expect(new Set(names).size).toBe(names.length);
    const groups = new Set(names.map((name) => name.split(":")[0]));
    expect([...groups]).toEqual([
      "states",
      "leases",
      "fencing",
      "claims",
      "races",
      "listPending",
      "delete",
    ]);
  });

  it("refuses options it cannot use", () => {
    const make = () => memoryRunStore();
    expect(() => runStoreConformance("store" as never)).toThrow(/give a function/);
    expect(() => runStoreConformance(make, { shortLeaseMs: 0 })).toThrow(/shortLeaseMs/);
    expect(() => runStoreConformance(make, { shortLeaseMs: 10.5 })).toThrow(/whole number/);
    expect(() => runStoreConformance(make, { racers: 1 })).toThrow(/racers/);
    expect(() => runStoreConformance(make, { racer: 4 } as never)).toThrow(
      /unknown option `racer`; did you mean `racers`/,
    );
    expect(() => runStoreConformance(make, { skip: ["leases"] as never })).toThrow(
      /skip must be a list of "listPending" and "delete"/,
    );
  });

  it("leaves out the optional groups named in skip, and only those", () => {
    const all = runStoreConformance(() => memoryRunStore()).map((check) => check.name);
    const some = runStoreConformance(() => memoryRunStore(), {
      skip: ["listPending", "delete"],
    }).map((check) => check.name);
    expect(some).toEqual(
      all.filter((name) => !name.startsWith("listPending:") && !name.startsWith("delete:")),
    );
    expect(some.length).toBeLessThan(all.length);
  });

  it("fails a delete that leaves the deleted state resumable", async () => {
    const forgetful = (): RunStore => {
      const store = memoryRunStore();
      // Claims kept apart from what delete uses up: a copy of a deleted state could still resume.
      const claims = memoryRunStore();
      return { ...store, claim: (stateId) => claims.claim(stateId) };
    };
    const [check] = named(runStoreConformance(forgetful), "delete: the deleted state is used up");
    expect(await outcome(check!)).toMatch(/^claim of the deleted state: expected false, got true$/);
  });

  it("fails a store that takes a number for an id, or a forged lease", async () => {
    const lax = (): RunStore => {
      const store = memoryRunStore();
      return {
        ...store,
        get: (runId) => store.get(String(runId)),
        put: (state, lease) =>
          store
            .acquire(lease.runId)
            .then(async (fresh) => (fresh ? store.put(state, fresh) : false)),
      };
    };
    const [check] = named(runStoreConformance(lax), "states: an id that is not a string");
    expect(await outcome(check!)).toMatch(/^get\(5\): expected a rejection, got undefined$/);
  });

  it("fails a put that ignores the fencing token", async () => {
    const unfenced = (): RunStore => {
      const store = memoryRunStore({ leaseMs: 50 });
      return {
        ...store,
        // Answers true whatever the token: the superseded write "succeeds".
        put: (state, lease) => store.put(state, lease).then(() => true),
      };
    };
    const checks = runStoreConformance(unfenced, { shortLeaseMs: 50 });
    const [check] = named(checks, "fencing: put with a superseded lease");
    expect(await outcome(check!)).toMatch(
      /^put with the superseded lease: expected false, got true$/,
    );
  });

  it("fails a delete that pulls a run from under a live lease", async () => {
    const eager = (): RunStore => {
      const store = memoryRunStore();
      return {
        ...store,
        delete: async (runId) => {
          const lease = await store.acquire(runId);
          if (!lease) {
            // Take the run anyway: what fail-closed forbids.
            return true;
          }
          await store.release(lease);
          return store.delete(runId);
        },
      };
    };
    const [check] = named(runStoreConformance(eager), "delete: while another process holds");
    expect(await outcome(check!)).toMatch(
      /^delete of a run under a live lease: expected false, got true$/,
    );
  });

  it("fails a listPending that ignores the limit or lists in no order", async () => {
    const unpaged = (): RunStore => {
      const store = memoryRunStore();
      return {
        ...store,
        listPending: async () => {
          const { runs } = await store.listPending({ limit: 1000 });
          return { runs: runs.reverse() };
        },
      };
    };
    const [paging] = named(runStoreConformance(unpaged), "listPending: pages");
    expect(await outcome(paging!)).toMatch(/^a page of limit 2 has 5 runs$/);
  });

  it("fails a listPending that hands out its own objects", async () => {
    const leaky = (): RunStore => {
      const store = memoryRunStore();
      let kept: Awaited<ReturnType<typeof store.listPending>> | undefined;
      return {
        ...store,
        listPending: async (options) => {
          kept ??= await store.listPending(options);
          return kept;
        },
      };
    };
    const [check] = named(runStoreConformance(leaky), "listPending: the answer is a copy");
    expect(await outcome(check!)).toMatch(
      /^the pending calls listed again: expected .*got .*someone else/,
    );
  });

  it("fails the listPending and delete checks, by name, for a store without them", async () => {
    const sixMethods = (options?: RunStoreOptions): RunStore => {
      const { listPending: _list, delete: _delete, ...six } = memoryRunStore(options);
      return six;
    };
    const checks = runStoreConformance(sixMethods);
    for (const check of [...named(checks, "listPending:"), ...named(checks, "delete:")]) {
      expect(await outcome(check)).toMatch(/^the store has no (listPending|delete)\(\)$/);
    }
    const others = checks.filter((check) => !/^(listPending|delete):/.test(check.name));
    for (const check of others) expect(await outcome(check)).toBe("passed");
  });
});
