import { messageOf } from "../errors.js";
import type { LoopEvent } from "../types/events.js";

/**
 * Freezes what an event hands listeners, all the way down, so that nothing a listener does
 * changes what the run executes or stores: the response parts the gate reads next, a step's
 * record, a result's output; `run-finish` carries a frozen copy of the result the caller gets.
 * Only done when someone listens (a run nobody
 * watches pays nothing); objects frozen once are not walked again. A provider's `raw`
 * response is the provider's and is left as it is.
 */
export function freezeEvent(event: LoopEvent): LoopEvent {
  switch (event.type) {
    case "model-response":
      deepFreeze(event.response.parts);
      deepFreeze(event.response.usage);
      Object.freeze(event.response);
      break;
    case "tool-result":
      deepFreeze(event.output);
      break;
    case "output-delta":
      deepFreeze(event.output);
      break;
    case "step-finish":
      deepFreeze(event.record);
      handedOut.add(event.record);
      break;
    case "tool-error":
    case "run-error":
      // The error is the tool's (or the caller's) own object: listeners get a frozen copy, the original stays as it was.
      return Object.freeze({ ...event, error: frozenCopy(event.error) });
    case "run-finish":
      // The caller gets the result itself; listeners get a frozen copy of it.
      return Object.freeze({ ...event, result: frozenResult(event.result) });
    default:
      break; // calls and args are frozen from the start; the rest are fresh primitives
  }
  return Object.freeze(event);
}

/**
 * The step records `step-finish` handed listeners, frozen all the way down: `run-finish` shares
 * them as they are, without walking them again (it hands out nothing they did not already get).
 */
const handedOut = new WeakSet<object>();

/** Deeper than any run's data: a value this deep is taken for a cycle. */
const MAX_DEPTH = 1000;

/** The result's data has a cycle (or is deeper than `MAX_DEPTH`): copied the slow way instead. */
class TooDeep extends Error {}

/**
 * A frozen copy of a run's result that shares the parts already frozen all the way down (the
 * step records, calls and args, tool outputs) instead of copying them: only the mutable parts
 * (the result, its arrays, the messages, the state's tallies) are copied, each once. Each
 * frozen part is still walked, so a frozen object holding a mutable one is copied, never
 * shared. Values that are not plain data (a `Date`, a class instance) and data with cycles
 * are copied as `structuredClone` copies them.
 */
function frozenResult<T>(result: T): T {
  try {
    return sharedCopy(result, new Map(), 0) as T;
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    const copy = structuredClone(result);
    deepFreeze(copy);
    return copy;
  }
}

function sharedCopy(value: unknown, copies: Map<object, object>, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_DEPTH) throw new TooDeep();
  const known = copies.get(value);
  if (known !== undefined) return known;
  const proto = Object.getPrototypeOf(value);
  const array = proto === Array.prototype && Array.isArray(value);
  if (!array && proto !== Object.prototype && proto !== null) {
    const copy = structuredClone(value);
    deepFreeze(copy);
    copies.set(value, copy);
    return copy;
  }
  const frozen = Object.isFrozen(value);
  if (frozen && handedOut.has(value)) return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  // A frozen object is kept as it is while all its parts are; the first part that is not starts its copy.
  let copy = frozen ? undefined : emptyLike(array);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = source[key];
    const itemCopy = sharedCopy(item, copies, depth + 1);
    if (copy === undefined) {
      if (itemCopy === item) continue;
      copy = emptyLike(array);
      for (let j = 0; j < i; j++) setOwn(copy, keys[j] as string, source[keys[j] as string]);
    }
    setOwn(copy, key, itemCopy);
  }
  if (copy === undefined) return value;
  // Copied parts are remembered, so a part the result holds twice (its messages, in `state` too) is copied once.
  copies.set(value, Object.freeze(copy));
  return copy;
}

/** An empty array or object to copy fields into. */
function emptyLike(array: boolean): Record<string, unknown> {
  return array ? ([] as unknown as Record<string, unknown>) : {};
}

/** Sets a field as data, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else target[key] = value;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * A frozen shallow copy of a thrown value that keeps what a developer reads: the same class
 * (`instanceof` still holds), message, stack, `cause` and own fields. A value whose fields
 * cannot be read (a throwing proxy) becomes a frozen `Error` with its message.
 */
function frozenCopy(thrown: unknown): unknown {
  if (typeof thrown !== "object" || thrown === null) return thrown;
  try {
    const copy = Object.create(
      Object.getPrototypeOf(thrown),
      Object.getOwnPropertyDescriptors(thrown),
    ) as { stack?: unknown };
    // Where these are accessors of the prototype (not own fields), keep their values: a host
    // object's getters (a DOMException's `name`, `message`, `code`) refuse a copy as `this`.
    for (const key of ["name", "message", "code", "stack"] as const) {
      if (Object.hasOwn(copy, key)) continue;
      const value = (thrown as Record<string, unknown>)[key];
      if (value === undefined) continue;
      Object.defineProperty(copy, key, { value, configurable: true, writable: true });
    }
    return Object.freeze(copy);
  } catch {
    return Object.freeze(new Error(messageOf(thrown)));
  }
}
