/** A small seeded PRNG (mulberry32): the same seed gives the same numbers, everywhere. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [low, high] (both included). */
  int(low: number, high: number): number;
  /** true with the given chance. */
  chance(p: number): boolean;
  /** One item of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/** A generator seeded by a number and any strings (a tool's name, say), mixed by FNV-1a. */
export function seededRandom(seed: number, ...salt: string[]): Random {
  let state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  for (const text of salt) {
    for (let i = 0; i < text.length; i++) {
      state ^= text.charCodeAt(i);
      state = Math.imul(state, 0x01000193) >>> 0;
    }
    state = Math.imul(state ^ 0xff, 0x01000193) >>> 0;
  }
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (low, high) => low + Math.floor(next() * (high - low + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}
