/**
 * `tollgate/vitest`: matchers over a run's decisions. Import it once in a setup file (or a
 * test) and `expect(result).toHaveRunTool("x")`, `.toHaveRequestedTool`, `.toHaveDenied`,
 * `.toHavePausedFor`, `.toHaveBlocked` and `.toHaveRunTools` are there, typed; each failure
 * shows the run's decision table. Or register them yourself: `expect.extend(tollgateMatchers)`.
 *
 * @example
 * // vitest.setup.ts (listed in vitest.config's test.setupFiles)
 * import "tollgate/vitest";
 */
import { expect } from "vitest";
import { type TollgateMatchers, tollgateMatchers } from "./matchers.js";

export type { TollgateMatchers } from "./matchers.js";
export { tollgateMatchers } from "./matchers.js";

expect.extend(tollgateMatchers);

declare module "vitest" {
  interface Assertion<T = any> extends TollgateMatchers<T> {}
  interface AsymmetricMatchersContaining extends TollgateMatchers {}
}
