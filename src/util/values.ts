/**
 * Whether a value is an object literal (or `Object.create(null)`), not an array or a class
 * instance. Every check of user data that reads keys starts here, so a class instance or an
 * array never passes for a record.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * "null", "an array", "a function", "a string", …: a value's kind, for messages about a value
 * of the wrong kind (what was given, without showing the value itself).
 */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

/** A value's JSON type as a JSON Schema validator names it: "null", "array", "object", "string", … */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
