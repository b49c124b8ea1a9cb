/**
 * How many runs a property makes: `n`, or a tenth of it (at least 50) under `npm run mutate`,
 * which runs the covering tests once per mutant; a tenth still kills what the property can.
 */
export const runs = (n: number): number =>
  process.env.TOLLGATE_MUTATION === "1" ? Math.max(50, Math.ceil(n / 10)) : n;

/**
 * A sanity count a property expects over `n` runs, scaled to the `runs(n)` it really makes, so
 * "more than 50 of 300 runs paused" stays "more than a sixth" when `npm run mutate` runs 50.
 */
export const scaled = (count: number, n: number): number => Math.floor((count * runs(n)) / n);
