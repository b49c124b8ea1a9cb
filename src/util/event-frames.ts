/**
 * The frames `toEventStream` writes besides the run's own events, shared with the reader in
 * `tollgate/event-stream`. No `LoopEvent` type has either name.
 */
export const FRAME = {
  /** The run ended normally: the last frame, after `run-finish`. Its data is `{}`. */
  end: "end",
  /** The run threw: the last frame. Its data is `{ "message": string }`, redacted by the server. */
  error: "error",
} as const;
