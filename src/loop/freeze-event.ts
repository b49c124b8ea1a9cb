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
    case "step-finish":
      deepFreeze(event.record);
      break;
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
