/**
 * The error for a step feature asked for before `step-features.ts` installed it. `run-loop.ts`
 * loads the chunk before any step that uses one, so this is a bug in the loop, never a user's
 * mistake; it names the feature.
 */
export function notInstalled(feature: string): Error {
  return new Error(`tollgate: ${feature} was asked for before step-features.ts loaded (a bug)`);
}
