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
  const at = path.replace(/^\./, "") || "(the whole value)";
  if (
    typeof expected === "string" &&
    typeof actual === "string" &&
    !(fits(expected) && fits(actual))
  ) {
    lines.push(`${at}: ${stringDiff(expected, actual)}`);
    return;
  }
  lines.push(`${at}: expected ${show(expected)}, got ${show(actual)}`);
}

/** How much of two long strings a drift line shows before and after their first difference. */
const BEFORE = 30;
const AFTER = 40;

/**
 * Two long strings around their first difference, so a long prompt that changed in its middle
 * shows the change, not the same prefix twice:
 * `differs at character 812 (lengths 900 and 902): expected …"for the Oslo office"…, got …`.
 */
function stringDiff(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const from = Math.max(0, at - BEFORE);
  const around = (text: string) =>
    `${from > 0 ? "…" : ""}${JSON.stringify(text.slice(from, at + AFTER))}${text.length > at + AFTER ? "…" : ""}`;
  return `differs at character ${at} (lengths ${expected.length} and ${actual.length}): expected ${around(expected)}, got ${around(actual)}`;
}

const isObject = (value: Json | undefined): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A value in one short line. */
function show(value: Json | undefined): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

/** Whether a string shows whole in one short line. */
const fits = (text: string) => JSON.stringify(text).length <= 70;
