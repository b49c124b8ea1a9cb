import { messageOf } from "../errors.js";
import type { LoopEvent } from "../events.js";

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
      break;
    case "tool-error":
    case "run-error":
      // The error is the tool's (or the caller's) own object: listeners get a frozen copy, the original stays as it was.
      return Object.freeze({ ...event, error: frozenCopy(event.error) });
    case "run-finish": {
      // The caller gets the result itself; listeners get a frozen copy of it.
      const result = structuredClone(event.result);
      deepFreeze(result);
      return Object.freeze({ ...event, result });
    }
    default:
      break; // calls and args are frozen from the start; the rest are fresh primitives
  }
  return Object.freeze(event);
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
