/**
 * Deterministic randomness for the sandbox. Nothing here keeps state: every value is a
 * hash of its coordinates (seed, project, page, day, channel), so any day of any page can
 * be computed on its own, in any order, and always comes out the same.
 */
/** A 32-bit avalanche mix (the murmur3 finaliser). */
function mix32(value) {
    let h = value | 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
}
/** Hashes a few integers into one unsigned 32-bit value. */
export function hashInts(...values) {
    let h = 0x9e3779b9;
    for (const value of values) {
        h = mix32(h ^ mix32(value | 0) ^ Math.imul(h, 31));
    }
    return h;
}
/** Hashes a string (FNV-1a, then mixed) into an unsigned 32-bit value. */
export function hashString(text) {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 0x01000193);
    }
    return mix32(h);
}
/** A uniform number in [0, 1) from the given coordinates. */
export function unit(...values) {
    return hashInts(...values) / 0x1_0000_0000;
}
/** A uniform number in [low, high) from the given coordinates. */
export function between(low, high, ...values) {
    return low + (high - low) * unit(...values);
}
/**
 * Rounds `x` down or up at random, up with probability frac(x), so that small expected
 * counts (0.3 visitors a day) still produce a realistic mix of 0 and 1. For a fixed `u` the
 * result never decreases as `x` grows, which keeps partial days growing monotonically.
 */
export function stochasticRound(x, u) {
    if (!(x > 0))
        return 0;
    const whole = Math.floor(x);
    return u < x - whole ? whole + 1 : whole;
}
/** A small seeded generator for building a site once (mulberry32). */
export function createRng(seed) {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
    };
}
//# sourceMappingURL=random.js.map