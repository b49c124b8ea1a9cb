import type { ModelSettings } from "../types/provider.js";
import { editDistance, shownValue } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";

/** The settings every adapter maps; any other key goes to the provider as it is. */
const PORTABLE: Record<string, (value: unknown) => boolean> = {
  temperature: (value) => typeof value === "number" && Number.isFinite(value),
  topP: (value) => typeof value === "number" && Number.isFinite(value),
  maxOutputTokens: (value) => Number.isInteger(value) && (value as number) > 0,
  stopSequences: (value) => Array.isArray(value) && value.every((item) => typeof item === "string"),
  seed: (value) => Number.isInteger(value),
};

const WANTED: Record<string, string> = {
  temperature: "a number",
  topP: "a number",
  maxOutputTokens: "a whole number above 0",
  stopSequences: "an array of strings",
  seed: "a whole number",
};

/** Other libraries' names for the portable settings. */
const ALIASES: Record<string, string> = {
  maxTokens: "maxOutputTokens",
  maxOutputToken: "maxOutputTokens",
  stopSequence: "stopSequences",
};

/**
 * Checks model settings (the loop's, or a run's): an object; each portable setting of its type;
 * an unknown key that is a misspelt portable one (`temprature`, `maxTokens`) refused with a
 * did-you-mean, since the provider would ignore it and the run would go on with its defaults.
 * Other keys (provider-specific, such as `reasoning_effort` or Gemini's `topK`) pass as they are.
 */
export function checkSettings(where: string, settings: unknown): ModelSettings | undefined {
  if (settings === undefined) return undefined;
  if (!isPlainObject(settings)) {
    throw new TypeError(`${where}: \`settings\` must be an object, got ${kindOf(settings)}`);
  }
  for (const [key, value] of Object.entries(settings)) {
    const check = PORTABLE[key];
    if (check) {
      if (value !== undefined && !check(value)) {
        throw new TypeError(
          `${where}: settings.${key} must be ${WANTED[key]}, got ${shownValue(value)}`,
        );
      }
      continue;
    }
    const meant = Object.hasOwn(ALIASES, key) ? ALIASES[key] : misspelt(key);
    if (meant !== undefined) {
      throw new TypeError(
        `${where}: settings.${key} is not a setting; did you mean \`${meant}\`? (portable settings: ${Object.keys(PORTABLE).join(", ")}; other keys go to the provider as they are)`,
      );
    }
  }
  return settings as ModelSettings;
}

/** The portable setting a camelCase key of six letters or more misspells (edit distance ≤ 2). */
function misspelt(key: string): string | undefined {
  if (key.length < 6 || key.includes("_")) return undefined;
  return Object.keys(PORTABLE).find(
    (portable) => editDistance(key.toLowerCase(), portable.toLowerCase()) <= 2,
  );
}

/**
 * Settings over others, key by key (an `undefined` key leaves the one below): a run's over the
 * loop's, a step's (from `prepareStep`) over the run's.
 */
export function mergeSettings(
  below: ModelSettings | undefined,
  over: ModelSettings | undefined,
): ModelSettings | undefined {
  if (over === undefined) return below;
  if (below === undefined) return over;
  const merged: ModelSettings = { ...below };
  for (const [key, value] of Object.entries(over)) if (value !== undefined) merged[key] = value;
  return merged;
}
