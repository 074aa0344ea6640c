/**
 * Deterministic randomness for the sandbox. Nothing here keeps state: every value is a
 * hash of its coordinates (seed, project, page, day, channel), so any day of any page can
 * be computed on its own, in any order, and always comes out the same.
 */
/** Hashes a few integers into one unsigned 32-bit value. */
export declare function hashInts(...values: readonly number[]): number;
/** Hashes a string (FNV-1a, then mixed) into an unsigned 32-bit value. */
export declare function hashString(text: string): number;
/** A uniform number in [0, 1) from the given coordinates. */
export declare function unit(...values: readonly number[]): number;
/** A uniform number in [low, high) from the given coordinates. */
export declare function between(low: number, high: number, ...values: readonly number[]): number;
/**
 * Rounds `x` down or up at random, up with probability frac(x), so that small expected
 * counts (0.3 visitors a day) still produce a realistic mix of 0 and 1. For a fixed `u` the
 * result never decreases as `x` grows, which keeps partial days growing monotonically.
 */
export declare function stochasticRound(x: number, u: number): number;
/** A small seeded generator for building a site once (mulberry32). */
export declare function createRng(seed: number): () => number;
