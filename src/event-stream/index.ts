/**
 * `tollgate/event-stream`: the browser side of `toEventStream`. Dependency-free and free of
 * the loop, so a page's bundle stays small.
 */
export type { StreamedEvent } from "./read-event-stream.js";
export { EventStreamError, readEventStream } from "./read-event-stream.js";
