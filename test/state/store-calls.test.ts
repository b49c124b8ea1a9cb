/**
 * The loop's side of a `RunStore` (DESIGN §10, Resume): every call guarded, every answer
 * checked, failing closed. A store that throws, answers garbage or refuses a write gives a
 * `StoreError` naming the operation; a good answer passes through.
 */
import { memoryRunStore, type RunLease, type RunState, type RunStore, StoreError } from "tollgate";
import { describe, expect, it } from "vitest";
import { storeCalls } from "../../src/state/store-calls.js";

/** A working memory store with some methods replaced. */
const storeWith = (overrides: Partial<Record<keyof RunStore, unknown>>): RunStore =>
  ({ ...memoryRunStore(), ...overrides }) as RunStore;

const lease: RunLease = { runId: "r1", token: 3, ttlMs: 1_000 };
const state = { runId: "r1", stateId: "s1", status: "running" } as RunState;

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a StoreError");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe("a store method that throws or rejects", () => {
  const boom = new Error("disk on fire");
  const calls: [keyof RunStore, (store: ReturnType<typeof storeCalls>) => Promise<unknown>][] = [
    ["get", (s) => s.get("r1")],
    ["acquire", (s) => s.acquire("r1")],
    ["renew", (s) => s.renew(lease)],
    ["put", (s) => s.put(state, lease)],
    ["release", (s) => s.release(lease)],
    ["claim", (s) => s.claim("s1")],
  ];

  it.each(calls)(
    "%s(): StoreError naming the operation, the original as cause",
    async (name, use) => {
      const throwing = storeCalls(
        storeWith({
          [name]: () => {
            throw boom;
          },
        }),
      );
      const thrown = await storeError(use(throwing));
      expect(thrown.message).toBe(`the run store's ${name}() failed: disk on fire`);
      expect(thrown.operation).toBe(name);
      expect(thrown.cause).toBe(boom);

      const rejecting = storeCalls(storeWith({ [name]: () => Promise.reject("offline") }));
      const rejected = await storeError(use(rejecting));
      expect(rejected.message).toBe(`the run store's ${name}() failed: offline`);
      expect(rejected.operation).toBe(name);
      expect(rejected.cause).toBe("offline");
    },
  );
});

describe("get", () => {
  it("passes a state or undefined through", async () => {
    const store = storeCalls(storeWith({ get: async () => state }));
    await expect(store.get("r1")).resolves.toBe(state);
    await expect(storeCalls(memoryRunStore()).get("r1")).resolves.toBeUndefined();
  });

  it.each([
    ["null", null, "null"],
    ["a string", "yes", '"yes"'],
    ["a number", 0, "0"],
    ["true", true, "true"],
  ])("refuses %s", async (_, answer, shown) => {
    const error = await storeError(storeCalls(storeWith({ get: async () => answer })).get("r1"));
    expect(error.message).toBe(
      `the run store's get() answered ${shown} for run r1; answer a state or undefined`,
    );
    expect(error.operation).toBe("get");
  });
});

describe("acquire", () => {
  it("passes a lease through as a fresh { runId, token, ttlMs }", async () => {
    const answer = { runId: "r1", token: 9, ttlMs: 500, extra: "dropped" };
    const store = storeCalls(storeWith({ acquire: async () => answer }));
    await expect(store.acquire("r1")).resolves.toStrictEqual({ runId: "r1", token: 9, ttlMs: 500 });
    const real = storeCalls(memoryRunStore({ leaseMs: 700 }));
    await expect(real.acquire("r2")).resolves.toStrictEqual({
      runId: "r2",
      token: expect.any(Number),
      ttlMs: 700,
    });
    await expect(real.acquire("r2")).resolves.toBeUndefined(); // held
  });

  const callable = Object.assign(() => {}, { runId: "r1", token: 1, ttlMs: 100 });
  it.each([
    ["null", null, "null"],
    ["a string", "r1", '"r1"'],
    ["a function carrying the fields", callable, "a function"],
    [
      "a lease for another run",
      { runId: "r2", token: 1, ttlMs: 100 },
      '{"runId":"r2","token":1,"ttlMs":100}',
    ],
    ["a lease without a runId", { token: 1, ttlMs: 100 }, '{"token":1,"ttlMs":100}'],
    ["no token", { runId: "r1", ttlMs: 100 }, '{"runId":"r1","ttlMs":100}'],
    [
      "a fractional token",
      { runId: "r1", token: 1.5, ttlMs: 100 },
      '{"runId":"r1","token":1.5,"ttlMs":100}',
    ],
    [
      "a token as text",
      { runId: "r1", token: "1", ttlMs: 100 },
      '{"runId":"r1","token":"1","ttlMs":100}',
    ],
    [
      "a token past 2^53",
      { runId: "r1", token: 2 ** 53, ttlMs: 100 },
      `{"runId":"r1","token":${2 ** 53},"ttlMs":100}`,
    ],
    ["no ttlMs", { runId: "r1", token: 1 }, '{"runId":"r1","token":1}'],
    [
      "ttlMs as text",
      { runId: "r1", token: 1, ttlMs: "100" },
      '{"runId":"r1","token":1,"ttlMs":"100"}',
    ],
    ["ttlMs 0", { runId: "r1", token: 1, ttlMs: 0 }, '{"runId":"r1","token":1,"ttlMs":0}'],
    [
      "a negative ttlMs",
      { runId: "r1", token: 1, ttlMs: -5 },
      '{"runId":"r1","token":1,"ttlMs":-5}',
    ],
    [
      "ttlMs NaN",
      { runId: "r1", token: 1, ttlMs: Number.NaN },
      '{"runId":"r1","token":1,"ttlMs":null}',
    ],
  ])("refuses %s", async (_, answer, shown) => {
    const error = await storeError(
      storeCalls(storeWith({ acquire: async () => answer })).acquire("r1"),
    );
    expect(error.message).toBe(
      `the run store's acquire() answered ${shown} for run r1; answer { runId, token, ttlMs } or undefined`,
    );
    expect(error.operation).toBe("acquire");
  });
});

describe("renew and claim answer a boolean", () => {
  it.each(["renew", "claim"] as const)("%s: true and false pass through", async (name) => {
    for (const answer of [true, false]) {
      const store = storeCalls(storeWith({ [name]: async () => answer }));
      await expect(name === "renew" ? store.renew(lease) : store.claim("s1")).resolves.toBe(answer);
    }
  });

  it.each([
    ["renew", "yes", '"yes"'],
    ["renew", undefined, "undefined"],
    ["claim", 1, "1"],
    ["claim", null, "null"],
  ] as const)("%s answering %s is refused", async (name, answer, shown) => {
    const store = storeCalls(storeWith({ [name]: async () => answer }));
    const error = await storeError(name === "renew" ? store.renew(lease) : store.claim("s1"));
    expect(error.message).toBe(`the run store's ${name}() answered ${shown}; answer true or false`);
    expect(error.operation).toBe(name);
    expect(error.cause).toBeUndefined();
  });
});

describe("put", () => {
  it("resolves when the store wrote the state", async () => {
    const seen: unknown[] = [];
    const store = storeCalls(
      storeWith({
        put: async (...args: unknown[]) => {
          seen.push(args);
          return true;
        },
      }),
    );
    await expect(store.put(state, lease)).resolves.toBeUndefined();
    expect(seen).toEqual([[state, lease]]);
  });

  it("false is the fencing refusal: another process holds the run now", async () => {
    const store = storeCalls(storeWith({ put: async () => false }));
    const error = await storeError(store.put(state, lease));
    expect(error.message).toBe(
      "the store refused to write run r1: this process no longer holds its lease (token 3); another process has taken the run over",
    );
    expect(error.operation).toBe("put");
  });

  it("a stale lease on a real store is refused the same way", async () => {
    const memory = memoryRunStore({ leaseMs: 1 });
    const store = storeCalls(memory);
    const first = (await store.acquire("r1"))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await store.acquire("r1"))!;
    expect(second.token).toBeGreaterThan(first.token);
    await expect(store.put(state, second)).resolves.toBeUndefined();
    const error = await storeError(store.put(state, first));
    expect(error.message).toContain(`no longer holds its lease (token ${first.token})`);
  });

  it("anything but a boolean is refused", async () => {
    const store = storeCalls(storeWith({ put: async () => "ok" }));
    const error = await storeError(store.put(state, lease));
    expect(error.message).toBe(`the run store's put() answered "ok"; answer true or false`);
    expect(error.operation).toBe("put");
  });
});

describe("release", () => {
  it("resolves to nothing, whatever the store answers", async () => {
    const store = storeCalls(storeWith({ release: async () => "whatever" }));
    await expect(store.release(lease)).resolves.toBeUndefined();
  });
});
