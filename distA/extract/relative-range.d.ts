import { type Grain } from './windows.js';
export declare const LAST_UNITS: {
    readonly d: "days";
    readonly w: "weeks";
    readonly m: "months";
};
export type LastUnit = keyof typeof LAST_UNITS;
export interface LastSpec {
    count: number;
    unit: LastUnit;
}
/** Parses `--last`: a whole number and a unit, `7d`, `4w` or `3m`. */
export declare function parseLast(value: string): LastSpec;
/**
 * The range `--last` names: it ends at today (UTC, exclusive) aligned down to the window
 * grain, so that it holds only whole windows, and starts `count` units earlier, aligned down
 * too (a range never comes out shorter than asked). `--last 7d --window week` is the last
 * whole ISO week; `--last 3m --window month` the last three whole months.
 */
export declare function lastRange(spec: LastSpec, grain: Grain, nowMs: number): {
    from: string;
    to: string;
};
export interface RangeArgs {
    from?: string | undefined;
    to?: string | undefined;
    last?: string | undefined;
}
export interface ResolvedRange {
    from: string;
    to: string;
    /** The `--last` it came from, if any. */
    last?: string;
}
/**
 * One range from `--from/--to` or `--last`: exactly one of the two forms. `defaultLast`
 * applies when neither is given; without it, a missing range is a usage error.
 */
export declare function resolveRange(args: RangeArgs, grain: Grain, nowMs: number, defaultLast?: string): ResolvedRange;
