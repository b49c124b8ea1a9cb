import type { ModelRequest, ModelSettings } from "tollgate";

/** The settings every adapter maps, split from the rest, which adapters pass into the body. */
export interface SplitSettings {
  temperature?: number | undefined;
  topP?: number | undefined;
  maxOutputTokens?: number | undefined;
  stopSequences?: string[] | undefined;
  seed?: number | undefined;
  /** Every other key, as given: provider-specific options such as `reasoning_effort`. */
  extra: Record<string, unknown>;
}

/** Splits a request's settings into the portable ones and the provider-specific rest. */
export function splitSettings(settings: ModelSettings | undefined): SplitSettings {
  const { temperature, topP, maxOutputTokens, stopSequences, seed, ...extra } = settings ?? {};
  return { temperature, topP, maxOutputTokens, stopSequences, seed, extra };
}

/** `value` without its `undefined` entries, so request bodies only carry what was set. */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined) out[key] = value[key];
  }
  return out;
}

/** The request with the adapter's default settings under its own (the request's win). */
export const withDefaultSettings = (
  request: ModelRequest,
  defaults: ModelSettings | undefined,
): ModelRequest =>
  defaults ? { ...request, settings: { ...defaults, ...request.settings } } : request;
