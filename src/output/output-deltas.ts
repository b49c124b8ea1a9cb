import type { ModelStreamPart } from "../types/provider.js";
import type { ResolvedOutput } from "./output-option.js";
import { PartialJson, parsePartialJson } from "./partial-json.js";

/**
 * How far apart a long answer's events are spread: the value is looked at again once the JSON
 * text has grown by 1/256 of its length since the last look, so the events of one response
 * carry about 256 times its text at most, however finely it streams (a listener that
 * serializes each one stays linear). An answer under 256 characters is looked at every part.
 */
const SPREAD = 256;
/**
 * The most a look may copy (`PartialJson.openSize`: about 10,000 array items, 1,000 object
 * keys or 500 levels of nesting still open): past it, the value is shown again once it is
 * whole or the response ends.
 */
const MAX_COPY = 10_000;

/**
 * Follows one model response's stream for the final answer taking shape: the text in
 * "native" and "prompted" modes, the final-answer tool's args in "tool" mode. `feed` returns
 * the partial output when a part changed it, else `undefined`. Each part costs what its own
 * text does (see `SPREAD` and `MAX_COPY`); the value the response ends with is always given.
 */
export function outputDeltas(output: ResolvedOutput): (part: ModelStreamPart) => unknown {
  const json = new PartialJson();
  let index: number | undefined;
  let shown: unknown;
  let lookedAt = 0;
  /** A look was put off for its size since the last value given: the value has grown since. */
  let grown = false;
  /** `value`, unless it is the last value given (`compare`: check for that). */
  const give = (value: unknown, compare: boolean) => {
    if (value === undefined || (compare && sameJson(value, shown))) return undefined;
    shown = value;
    grown = false;
    return value;
  };
  /** The streamed value, when it changed and it is time to look (see `SPREAD`, `MAX_COPY`). */
  const look = () => {
    if (!json.changed) return undefined;
    if (json.whole) return give(json.value(), !grown);
    if (json.openSize > MAX_COPY) {
      grown = true;
      return undefined;
    }
    if ((json.length - lookedAt) * SPREAD < json.length) return undefined;
    lookedAt = json.length;
    return give(json.value(), true);
  };
  return (part) => {
    if (part.type === "finish") return json.changed ? give(json.end(), !grown) : undefined;
    if (output.mode !== "tool") {
      if (part.type !== "text-delta") return undefined;
      json.push(part.text);
      return look();
    }
    if (part.type === "tool-call" && part.name === output.name && index === undefined) {
      return give(parsePartialJson(part.args), true);
    }
    if (part.type !== "tool-call-delta") return undefined;
    if (index === undefined && part.name === output.name) index = part.index;
    if (part.index !== index) return undefined;
    json.push(part.argsDelta);
    return look();
  };
}

/**
 * Whether two values read from JSON serialize the same (as `JSON.stringify` writes them: a
 * non-finite number as `null`, `-0` as `0`). Members they share are not walked.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return asJson(a) === asJson(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return keys.every((key, i) => key === otherKeys[i] && sameJson(x[key], y[key]));
}

/** A primitive as JSON sees it: a number that is not finite is `null`. */
const asJson = (value: unknown) =>
  typeof value === "number" && !Number.isFinite(value) ? null : value;
