import { messageOf, StoreError } from "../errors.js";
import type { RunState } from "../types/run-state.js";
import { shortForm } from "../util/policy-call.js";
import type { RunLease, RunStore } from "./run-store.js";

/**
 * The loop's side of a `RunStore`: every call guarded and every answer checked, failing
 * closed. A store that throws, rejects, or answers with something unexpected (a lease
 * without a token, "yes" for a boolean) gives a `StoreError` naming the operation; a write
 * the store refuses (a stale lease) is a `StoreError` too.
 */
export interface StoreCalls {
  get(runId: string): Promise<RunState | undefined>;
  acquire(runId: string): Promise<RunLease | undefined>;
  renew(lease: RunLease): Promise<boolean>;
  put(state: RunState, lease: RunLease): Promise<void>;
  release(lease: RunLease): Promise<void>;
  claim(stateId: string): Promise<boolean>;
}

/** Wraps a store (checked once at construction) in the loop's guards. */
export function storeCalls(store: RunStore): StoreCalls {
  return {
    async get(runId) {
      const state = await call("get", () => store.get(runId));
      if (state === undefined) return undefined;
      if (typeof state !== "object" || state === null) {
        throw refused(
          "get",
          `answered ${shortForm(state)} for run ${runId}; answer a state or undefined`,
        );
      }
      return state as RunState;
    },
    async acquire(runId) {
      const lease = await call("acquire", () => store.acquire(runId));
      if (lease === undefined) return undefined;
      const { token, ttlMs } = (lease ?? {}) as Partial<RunLease>;
      const valid =
        typeof lease === "object" &&
        lease !== null &&
        (lease as RunLease).runId === runId &&
        Number.isSafeInteger(token) &&
        typeof ttlMs === "number" &&
        ttlMs > 0 &&
        Number.isFinite(ttlMs);
      if (!valid) {
        throw refused(
          "acquire",
          `answered ${shortForm(lease)} for run ${runId}; answer { runId, token, ttlMs } or undefined`,
        );
      }
      return { runId, token: token as number, ttlMs: ttlMs as number };
    },
    async renew(lease) {
      return yesOrNo("renew", await call("renew", () => store.renew(lease)));
    },
    async put(state, lease) {
      const written = yesOrNo("put", await call("put", () => store.put(state, lease)));
      if (!written) {
        throw new StoreError(
          `the store refused to write run ${state.runId}: this process no longer holds its lease (token ${lease.token}); another process has taken the run over`,
          "put",
        );
      }
    },
    async release(lease) {
      await call("release", () => store.release(lease));
    },
    async claim(stateId) {
      return yesOrNo("claim", await call("claim", () => store.claim(stateId)));
    },
  };
}

async function call<T>(operation: string, invoke: () => Promise<T>): Promise<T> {
  try {
    return await invoke();
  } catch (error) {
    throw new StoreError(`the run store's ${operation}() failed: ${messageOf(error)}`, operation, {
      cause: error,
    });
  }
}

function yesOrNo(operation: string, answer: unknown): boolean {
  if (typeof answer === "boolean") return answer;
  throw refused(operation, `answered ${shortForm(answer)}; answer true or false`);
}

function refused(operation: string, problem: string): StoreError {
  return new StoreError(`the run store's ${operation}() ${problem}`, operation);
}
