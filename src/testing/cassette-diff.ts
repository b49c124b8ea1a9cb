import type { Json } from "./cassette-json.js";

/** How many differences a drift message lists before it says how many more there are. */
const SHOWN = 8;

/**
 * Where two JSON values differ, path by path (`messages[2].content: expected "a", got "b"`),
 * at most a few lines with short values; empty when they are equal.
 */
export function jsonDiff(expected: Json | undefined, actual: Json | undefined): string[] {
  const lines: string[] = [];
  walk("", expected, actual, lines);
  if (lines.length <= SHOWN) return lines;
  return [...lines.slice(0, SHOWN), `… and ${lines.length - SHOWN} more difference(s)`];
}

function walk(path: string, expected: Json | undefined, actual: Json | undefined, lines: string[]) {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let index = 0; index < length; index++) {
      walk(`${path}[${index}]`, expected[index], actual[index], lines);
    }
    return;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      const at = /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${path}.${key}`
        : `${path}[${JSON.stringify(key)}]`;
      walk(at, expected[key], actual[key], lines);
    }
    return;
  }
  if (JSON.stringify(expected) === JSON.stringify(actual)) return;
  lines.push(
    `${path.replace(/^\./, "") || "(the whole value)"}: expected ${show(expected)}, got ${show(actual)}`,
  );
}

const isObject = (value: Json | undefined): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A value in one short line. */
function show(value: Json | undefined): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}
