import { isPlainObject, kindOf } from "./values.js";

/**
 * Throws a `TypeError` when `value` is not a plain object or has a key not in `known`, with a
 * did-you-mean for a near miss. A gate must never be switched off by a typo in an option:
 * `preToolCalls` for `preToolCall` is an error, not a loop without hooks. A known option set to
 * `null` is refused too (`undefined` means "not given"; `deps` may be null).
 */
export function checkKeys(
  where: string,
  value: unknown,
  known: readonly string[],
  /** Names other libraries use for an option, mapped to ours (`parameters` → `input`). */
  aliases: Readonly<Record<string, string>> = {},
): void {
  if (!isPlainObject(value)) {
    throw new TypeError(`${where}: expected an options object, got ${kindOf(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (known.includes(key)) {
      // `null` is no option's "not given" (that is `undefined`): a guess here could open the gate.
      if (value[key] === null && key !== "deps") {
        throw new TypeError(
          `${where}: \`${key}\` is null; leave it out (or undefined) for the default, or give a value`,
        );
      }
      continue;
    }
    const near = Object.hasOwn(aliases, key) ? aliases[key] : closest(key, known);
    const hint = near ? `did you mean \`${near}\`? ` : "";
    throw new TypeError(
      `${where}: unknown option \`${key}\`; ${hint}the options are ${known.map((k) => `\`${k}\``).join(", ")}`,
    );
  }
}

/**
 * A given value as a message shows it: numbers as they are, a string quoted (a number written
 * as a string says to drop the quotes), anything else by its kind.
 */
export function shownValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") return kindOf(value);
  const quoted = value.length <= 60 ? `the string ${JSON.stringify(value)}` : "a string";
  const number = value.trim() === "" ? Number.NaN : Number(value);
  return Number.isFinite(number) ? `${quoted} (write ${number}, without quotes)` : quoted;
}

/** The known name nearest to `name`, when it is near enough to be a typo (or a case slip). */
export function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const candidateLower = candidate.toLowerCase();
    if (candidateLower === lower) return candidate;
    const distance = editDistance(lower, candidateLower);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(2, Math.floor(name.length / 3));
  if (best !== undefined && bestDistance <= allowed) return best;
  // A plural or a prefix (`policies` → `policy`, `tool` → `tools`) is near enough too.
  return known.find((candidate) => {
    const candidateLower = candidate.toLowerCase();
    return candidateLower.startsWith(lower.slice(0, 5)) && lower.length >= 4;
  });
}

/** The Levenshtein distance between two texts. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
