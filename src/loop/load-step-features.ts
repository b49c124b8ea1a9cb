import type { ResolvedOptions } from "../options/loop-options.js";

type StepFeatures = typeof import("./step-features.js");

let loaded: StepFeatures | undefined;

/**
 * Loads the step's optional features (`step-features.ts`) when the loop's options use one
 * (`prepareStep`, model hooks) and they have not loaded yet; `undefined` when there is nothing
 * to load. The loop asks before each step, so a handoff's target that uses one has them too.
 */
export function stepFeaturesLoading(options: ResolvedOptions<any>): Promise<void> | undefined {
  if (loaded !== undefined || (!options.policy.prepareStep && !options.modelHooks)) {
    return undefined;
  }
  return import("./step-features.js").then((features) => {
    loaded = features;
  });
}

/** The step's optional features: only a step of a loop that uses one asks, once they loaded. */
export function stepFeatures(): StepFeatures {
  if (!loaded) throw new Error("tollgate: a step feature was used before it loaded (a bug)");
  return loaded;
}
