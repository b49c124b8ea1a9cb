import type { LoopEventType } from "../types/events.js";

/** Every event name; a `Record` over the names so a new event cannot be left out. */
const EVENT_TYPES: Record<LoopEventType, true> = {
  "run-start": true,
  "step-start": true,
  "model-hook": true,
  "text-delta": true,
  "reasoning-delta": true,
  "tool-call-delta": true,
  "model-response": true,
  "tool-call": true,
  "tool-decision": true,
  "tool-post-decision": true,
  "tool-result": true,
  "tool-error": true,
  "sub-run": true,
  "output-delta": true,
  "step-finish": true,
  handoff: true,
  "run-finish": true,
  "run-error": true,
};

/** Every event name, in the order events come. */
export const EVENT_NAMES: readonly string[] = Object.freeze(Object.keys(EVENT_TYPES));

/**
 * Whether `name` is the name of an event. Its own module, with no dependency: the browser's
 * `readEventStream` checks the frames it reads with it.
 */
export function isEventType(name: unknown): name is LoopEventType {
  return typeof name === "string" && Object.hasOwn(EVENT_TYPES, name);
}
