/** What a browser is told when a run fails, unless the developer says otherwise. */
export const DEFAULT_ERROR_TEXT = "the run failed";

/**
 * The text a failed run shows a browser: `textOf(error)` when it gives a string, else the
 * default. The error itself (its message, its stack) never reaches the browser unless the
 * developer's function puts it there; a function that throws falls back to the default.
 */
export function shownError(
  error: unknown,
  textOf: ((error: unknown) => string) | undefined,
): string {
  if (!textOf) return DEFAULT_ERROR_TEXT;
  try {
    const text = textOf(error);
    return typeof text === "string" ? text : DEFAULT_ERROR_TEXT;
  } catch {
    return DEFAULT_ERROR_TEXT;
  }
}
