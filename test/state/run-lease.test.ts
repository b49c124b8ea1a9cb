/**
 * Keeping a run's lease (DESIGN §10, Resume): renewed every third of its length while the run
 * goes on; a refused or failed renewal calls `lost` once with a `StoreError` and renewing
 * stops; an abort or `stop()` ends renewing, and nothing happens after it.
 */
import { getEventListeners } from "node:events";
import { type RunLease, StoreError } from "tollgate";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keepLease } from "../../src/state/run-lease.js";
import type { StoreCalls } from "../../src/state/store-calls.js";

const lease: RunLease = { runId: "r1", token: 4, ttlMs: 300 };

/** Store calls whose `renew` answers from a script; every other method must not be called. */
function storeRenewing(renew: (lease: RunLease) => Promise<boolean>) {
  const renewals: RunLease[] = [];
  const unexpected = () => Promise.reject(new Error("not expected here"));
  const store: StoreCalls = {
    get: unexpected,
    acquire: unexpected,
    put: unexpected,
    release: unexpected,
    claim: unexpected,
    renew: (given) => {
      renewals.push(given);
      return renew(given);
    },
  };
  return { store, renewals };
}

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("renewing", () => {
  it("a lease longer than a timer can wait renews at the longest wait, not every millisecond", async () => {
    const { store, renewals } = storeRenewing(async () => true);
    const long = { ...lease, ttlMs: 1e10 };
    const stop = keepLease(store, long, new AbortController().signal, vi.fn());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1 - 1_000);
    expect(renewals).toEqual([long]);
    stop();
  });

  it("renews the lease every third of its length, not before", async () => {
    const { store, renewals } = storeRenewing(async () => true);
    const lost = vi.fn();
    const stop = keepLease(store, lease, new AbortController().signal, lost);
    await vi.advanceTimersByTimeAsync(99);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toEqual([lease]);
    await vi.advanceTimersByTimeAsync(99);
    expect(renewals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(12);
    expect(lost).not.toHaveBeenCalled();
    stop();
  });

  it("a lease shorter than 3 ms is renewed every millisecond, never in a tight loop", async () => {
    const { store, renewals } = storeRenewing(async () => true);
    const stop = keepLease(store, { ...lease, ttlMs: 2 }, new AbortController().signal, vi.fn());
    await vi.advanceTimersByTimeAsync(0);
    expect(renewals).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(5);
    expect(renewals).toHaveLength(5);
    stop();
  });

  it("works where timers have no unref (Deno, browsers, edge runtimes)", async () => {
    const scheduled: number[] = [];
    vi.stubGlobal("setTimeout", (_: () => void, ms: number) => scheduled.push(ms));
    vi.stubGlobal("clearTimeout", () => {});
    const { store } = storeRenewing(async () => true);
    const stop = keepLease(store, lease, new AbortController().signal, vi.fn());
    expect(scheduled).toEqual([100]);
    stop();
  });
});

describe("losing the lease", () => {
  it("a refused renewal calls lost once with a StoreError, and renewing stops", async () => {
    const { store, renewals } = storeRenewing(async () => false);
    const lost = vi.fn();
    keepLease(store, lease, new AbortController().signal, lost);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(1);
    expect(lost).toHaveBeenCalledTimes(1);
    const error = lost.mock.calls[0]![0] as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toBe(
      "run r1 lost its lease (token 4): another process took the run over; this process stops it",
    );
    expect(error.operation).toBe("renew");
  });

  it("a renewal that throws calls lost once with a StoreError wrapping it, and renewing stops", async () => {
    const boom = new Error("connection reset");
    const { store, renewals } = storeRenewing(() => Promise.reject(boom));
    const lost = vi.fn();
    keepLease(store, lease, new AbortController().signal, lost);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(1);
    expect(lost).toHaveBeenCalledTimes(1);
    const error = lost.mock.calls[0]![0] as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toBe("renewing the lease failed: connection reset");
    expect(error.operation).toBe("renew");
    expect(error.cause).toBe(boom);
  });

  it("a StoreError from the store's guards reaches lost as it is", async () => {
    const guarded = new StoreError('the run store\'s renew() answered "yes"', "renew");
    const { store } = storeRenewing(() => Promise.reject(guarded));
    const lost = vi.fn();
    keepLease(store, lease, new AbortController().signal, lost);
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(lost.mock.calls[0]![0]).toBe(guarded);
  });
});

describe("stopping", () => {
  it("stop() ends renewing and leaves no listener on the run's signal", async () => {
    const { store, renewals } = storeRenewing(async () => true);
    const signal = new AbortController().signal;
    const stop = keepLease(store, lease, signal, vi.fn());
    expect(getEventListeners(signal, "abort")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    stop();
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(1);
  });

  it("an abort of the run's signal ends renewing", async () => {
    const { store, renewals } = storeRenewing(async () => true);
    const controller = new AbortController();
    const lost = vi.fn();
    keepLease(store, lease, controller.signal, lost);
    await vi.advanceTimersByTimeAsync(150);
    controller.abort();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(1);
    expect(lost).not.toHaveBeenCalled();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it.each([
    ["kept", (d: ReturnType<typeof deferred<boolean>>) => d.resolve(true)],
    ["refused", (d: ReturnType<typeof deferred<boolean>>) => d.resolve(false)],
    ["failed", (d: ReturnType<typeof deferred<boolean>>) => d.reject(new Error("late"))],
  ])("a renewal in flight at stop() that is then %s changes nothing", async (_, settle) => {
    const answer = deferred<boolean>();
    const { store, renewals } = storeRenewing(() => answer.promise);
    const lost = vi.fn();
    const stop = keepLease(store, lease, new AbortController().signal, lost);
    await vi.advanceTimersByTimeAsync(100);
    expect(renewals).toHaveLength(1);
    stop();
    settle(answer);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).toHaveLength(1);
    expect(lost).not.toHaveBeenCalled();
  });

  it("a renewal in flight at an abort that then fails calls nothing", async () => {
    const answer = deferred<boolean>();
    const { store } = storeRenewing(() => answer.promise);
    const controller = new AbortController();
    const lost = vi.fn();
    keepLease(store, lease, controller.signal, lost);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    answer.reject(new Error("late"));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lost).not.toHaveBeenCalled();
  });
});
