/** An error's `error.type`: its `name` (`RunTimeoutError`, `AbortError`, `TypeError`, …), else "_OTHER". */
export function errorTypeOf(error: unknown): string {
  try {
    const name = (error as { name?: unknown } | null)?.name;
    if (typeof name === "string" && name !== "") return name;
    const constructorName = (error as { constructor?: { name?: unknown } } | null)?.constructor
      ?.name;
    if (typeof constructorName === "string" && constructorName !== "") return constructorName;
  } catch {
    // a throwing getter: fall through
  }
  return "_OTHER";
}

/** An error's message, for a span's status, never throwing. */
export function messageOf(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : String(error);
  } catch {
    return "unreadable error";
  }
}

/** A value as JSON text for a content attribute (text stays as it is); never throws. */
export function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
