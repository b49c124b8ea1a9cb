import { messageOf } from "../errors.js";
import type { ToolContentPart, ToolResult } from "../types/messages.js";
import { isToolContent, storedParts } from "../util/content-parts.js";
import { contentText } from "../util/message-text.js";

/**
 * A tool's output as the transcript stores it (with its content parts, for an answer made by
 * `toolContent(...)`), or what JSON cannot carry in it.
 */
export type JsonOutput =
  | { ok: true; output: unknown; content?: ToolContentPart[] }
  | { ok: false; problem: string };

/** Deeper than this, an output is refused rather than risking the engine's stack later. */
const MAX_OUTPUT_DEPTH = 256;

/**
 * Stores a tool's output as the model will see it: a string as it is, anything else as JSON
 * data (`undefined` → `null`, `toJSON` honoured, as `JSON.stringify` does), copied, so later
 * changes to the tool's object never reach the transcript. A value
 * JSON cannot carry — a BigInt, a symbol, a function, a Map or Set, a Promise, an Error, a
 * cycle — is refused with where it is, never silently turned into `{}` or `null`.
 */
export function toJsonOutput(value: unknown): JsonOutput {
  if (typeof value === "string") return { ok: true, output: value };
  if (isToolContent(value)) {
    const stored = storedParts<ToolContentPart>(value.parts, ["text", "image"]);
    if (!stored.ok) return { ok: false, problem: `toolContent(...): ${stored.problem}` };
    return { ok: true, output: contentText(stored.parts), content: stored.parts };
  }
  const data = jsonData(value, "output");
  if (!data.ok) return { ok: false, problem: data.problem };
  return { ok: true, output: data.value === undefined ? null : data.value };
}

/**
 * `value` as JSON data (what a JSON round trip gives), or what JSON cannot carry in it and
 * where (`root` names the value: "args", "output"): a Map, a Set, bytes, a BigInt, a cycle...
 * are refused, never written as `{}` or dropped.
 */
export function jsonData(
  value: unknown,
  root: string,
): { ok: true; value: unknown } | { ok: false; problem: string; threw?: unknown } {
  try {
    return { ok: true, value: jsonCopy(value, root, new Set(), 0) };
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, problem: error.message };
    return { ok: false, problem: `reading it threw: ${messageOf(error)}`, threw: error };
  }
}

class NotJson extends Error {}

const REFUSED: ReadonlyArray<[new (...args: never[]) => unknown, string]> = [
  [Map, "a Map (return Object.fromEntries(map) or an array)"],
  [Set, "a Set (return an array)"],
  [WeakMap, "a WeakMap"],
  [WeakSet, "a WeakSet"],
  [Promise, "a Promise (did you forget an await?)"],
  [Error, "an Error (throw it, or return its message)"],
  [RegExp, "a RegExp (return its source)"],
];

function jsonCopy(value: unknown, path: string, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : null; // + 0 turns -0 into 0, as JSON does
    case "undefined":
      return undefined;
    case "bigint":
      throw new NotJson(`a BigInt at ${path} (return it as a string or a number)`);
    case "symbol":
      throw new NotJson(`a symbol at ${path}`);
    case "function":
      throw new NotJson(`a function at ${path}`);
  }
  if (value === null) return null;
  const object = value as object;
  if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
    // JSON would carry bytes as {"0":137,...} (a Buffer as {"type":"Buffer","data":[...]}):
    // megabytes of digits the model cannot see as an image.
    throw new NotJson(
      `bytes (${object.constructor.name}) at ${path} (for an image return toolContent([{ type: "image", image: bytes }]); else return base64 text)`,
    );
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === "function") {
    return jsonCopy(
      (object as { toJSON(key: string): unknown }).toJSON(""),
      path,
      ancestors,
      depth,
    );
  }
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
    if (object instanceof String || object instanceof Number || object instanceof Boolean) {
      return jsonCopy(object.valueOf(), path, ancestors, depth); // as JSON writes a boxed value
    }
    for (const [type, name] of REFUSED) {
      if (object instanceof type) throw new NotJson(`${name} at ${path}`);
    }
    refuseOpaque(object, path);
  }
  if (depth >= MAX_OUTPUT_DEPTH) {
    throw new NotJson(`nesting deeper than ${MAX_OUTPUT_DEPTH} levels at ${path}`);
  }
  if (ancestors.has(object)) throw new NotJson(`a circular reference at ${path}`);
  ancestors.add(object);
  const copy = Array.isArray(object)
    ? arrayCopy(object, path, ancestors, depth)
    : objectCopy(object as Record<string, unknown>, path, ancestors, depth);
  ancestors.delete(object);
  return copy;
}

/**
 * Refuses a class instance JSON would write as `{}` while it holds something: an iterator or a
 * generator (a tool written as `function*`), a stream, an instance whose fields are private.
 */
function refuseOpaque(object: object, path: string): void {
  if (Symbol.iterator in object || Symbol.asyncIterator in object) {
    throw new NotJson(
      `an iterator at ${path} (a generator or a stream: return an array of its items, e.g. [...items] or await Array.fromAsync(items))`,
    );
  }
  if (Object.keys(object).length === 0) {
    const name = (object.constructor as { name?: unknown } | undefined)?.name;
    const shown = typeof name === "string" && name !== "" ? `a ${name}` : "an object";
    throw new NotJson(
      `${shown} with no field JSON can see at ${path} (its data is private or inherited; give its class toJSON() or return plain data)`,
    );
  }
}

function arrayCopy(
  array: unknown[],
  path: string,
  ancestors: Set<object>,
  depth: number,
): unknown[] {
  const copy = new Array(array.length);
  for (let i = 0; i < array.length; i++) {
    const item = jsonCopy(array[i], `${path}[${i}]`, ancestors, depth + 1); // holes read as undefined
    copy[i] = item === undefined ? null : item;
  }
  return copy;
}

function objectCopy(
  object: Record<string, unknown>,
  path: string,
  ancestors: Set<object>,
  depth: number,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const item = jsonCopy(object[key], `${path}.${key}`, ancestors, depth + 1);
    if (item === undefined) continue;
    if (key === "__proto__") {
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true });
    } else copy[key] = item;
  }
  return copy;
}

/** A successful result; `content` when the tool answered with `toolContent(...)`. */
export function okResult(
  toolCallId: string,
  toolName: string,
  output: unknown,
  editedArgs?: unknown,
  content?: ToolContentPart[],
): ToolResult {
  const result: ToolResult = { toolCallId, toolName, output, isError: false };
  if (editedArgs !== undefined) result.editedArgs = editedArgs;
  if (content !== undefined) result.content = content;
  return result;
}

/** An error result; its output is the message the model reads. */
export const errorResult = (
  toolCallId: string,
  toolName: string,
  message: string,
  editedArgs?: unknown,
): ToolResult =>
  editedArgs === undefined
    ? { toolCallId, toolName, output: message, isError: true }
    : { toolCallId, toolName, output: message, isError: true, editedArgs };
