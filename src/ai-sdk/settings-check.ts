import { ProviderError } from "tollgate";
import { closest, shownValue } from "../util/option-keys.js";
import { isPlainObject, kindOf } from "../util/values.js";
import type { AISDKReasoningEffort } from "./language-model.js";

/** The settings every adapter maps (`ModelSettings`); the core checks their values. */
const PORTABLE = ["temperature", "topP", "maxOutputTokens", "stopSequences", "seed"];

/** The reasoning efforts of the V4 specification (`LanguageModelV4CallOptions.reasoning`). */
const EFFORTS: readonly AISDKReasoningEffort[] = [
  "provider-default",
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
];

const finite = (value: unknown) => typeof value === "number" && Number.isFinite(value);

/** What each of the AI SDK's own settings must be: `undefined` when fine, else what it must be. */
const RULES: Record<string, (value: unknown) => string | undefined> = {
  topK: (value) =>
    Number.isSafeInteger(value) && (value as number) > 0 ? undefined : "a whole number > 0",
  presencePenalty: (value) => (finite(value) ? undefined : "a number"),
  frequencyPenalty: (value) => (finite(value) ? undefined : "a number"),
  reasoning: (value) =>
    EFFORTS.includes(value as AISDKReasoningEffort)
      ? undefined
      : `one of ${EFFORTS.map((effort) => JSON.stringify(effort)).join(", ")}`,
  providerOptions: (value) =>
    isPlainObject(value) && Object.values(value).every(isPlainObject)
      ? undefined
      : "an object of provider names to objects, e.g. { openai: { strictJsonSchema: false } }",
  headers: (value) =>
    isPlainObject(value) &&
    Object.values(value).every((text) => text === undefined || typeof text === "string")
      ? undefined
      : "an object of header names to strings",
};

/** The settings keys `fromAISDK` carries besides the portable ones. */
export const AI_SDK_SETTINGS = Object.keys(RULES);

/** A refused setting; `text` follows the provider's name. */
const refuse = (provider: string, text: string) =>
  new ProviderError(`${provider} ${text}`, { retryable: false, provider });

/**
 * Checks the settings of one call before the model is called: a key `fromAISDK` cannot carry is
 * a `ProviderError` with a did-you-mean (`topk` → `topK`, `providerOption` →
 * `providerOptions`), since the AI SDK has no request body to copy it into; `topK`, the
 * penalties, `reasoning` (V4 only, one of the specification's efforts), `providerOptions` and
 * `headers` must be of their type, since the AI SDK would map a wrong value to something else
 * or drop it.
 */
export function checkSettings(
  provider: string,
  version: "v3" | "v4",
  rest: Record<string, unknown>,
): void {
  for (const [key, value] of Object.entries(rest)) {
    const rule = RULES[key];
    if (rule === undefined) {
      const near = closest(key, [...PORTABLE, ...AI_SDK_SETTINGS]);
      const hint = near === undefined ? "" : `did you mean "${near}"? `;
      throw refuse(
        provider,
        `cannot carry the setting "${key}"; ${hint}an AI SDK model takes ${[...PORTABLE, ...AI_SDK_SETTINGS].join(", ")}; put provider-specific options in providerOptions: { <provider>: { ... } }`,
      );
    }
    if (value === undefined) continue;
    if (key === "reasoning" && version === "v3") {
      throw refuse(
        provider,
        "is a V3 model, which takes no `reasoning` setting; ask for reasoning through providerOptions",
      );
    }
    const must = rule(value);
    if (must !== undefined) {
      const got = isPlainObject(value) ? kindOf(value) : shownValue(value);
      throw refuse(provider, `cannot carry the setting "${key}": it must be ${must}, got ${got}`);
    }
  }
}
