import type { RunState } from "../types/run-state.js";

/**
 * Where a lazy result keeps what takes its state, until it is first read: not enumerable, so
 * `console.log(result)` and a spread leave it out.
 */
const TAKE_STATE: unique symbol = Symbol("tollgate.takeState") as never;

interface Holder {
  [TAKE_STATE]?: (() => RunState) | undefined;
}

/**
 * The one accessor every lazy result shares. Enumerable, so `JSON.stringify`, a spread and
 * `structuredClone` read it and carry the state. Its first read takes the state and makes it a
 * plain value; an assignment replaces it.
 */
const LAZY_STATE: PropertyDescriptor = {
  get(this: Holder) {
    if (sealedStates.has(this)) return sealedStates.get(this);
    const state = this[TAKE_STATE]?.();
    settle(this, state);
    return state;
  },
  set(this: Holder, value: unknown) {
    if (Object.isFrozen(this)) {
      throw new TypeError("Cannot assign to read only property 'state' of a frozen run result");
    }
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

/** States taken for results frozen (or sealed) before their state was read, which cannot keep it. */
const sealedStates = new WeakMap<object, unknown>();

function settle(holder: Holder, value: unknown): void {
  if (Object.isSealed(holder)) {
    sealedStates.set(holder, value);
    return;
  }
  delete holder[TAKE_STATE];
  Object.defineProperty(holder, "state", {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/**
 * `result` with a `state` that `take()` makes when it is first read. For a finished run that
 * nothing writes or signs: its data no longer changes, so the state is the one the run would
 * have taken as it ended (only its `stateId` is drawn later). Why: taking it costs about a tenth
 * of a short run, and most callers never read a finished run's state.
 */
export function withLazyState<T extends object>(
  result: T,
  take: () => RunState,
): T & { readonly state: RunState } {
  Object.defineProperty(result, TAKE_STATE, { value: take, writable: true, configurable: true });
  return Object.defineProperty(result, "state", LAZY_STATE) as never;
}
