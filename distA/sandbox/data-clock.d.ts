/**
 * How far the simulated data has arrived at a given moment. Days are UTC day numbers
 * (days since 1970-01-01). Days before yesterday-but-one are final; the last two days
 * are a little short ("late data") and grow to their final value; today is partial, in
 * proportion to the part of the day gone by; later days are empty.
 */
export declare const DAY_MS = 86400000;
/** Days that may still grow: today and the two before it. */
export declare const LATE_DAYS = 2;
export declare function dayOf(ms: number): number;
/** The share (0..1) of day `day`'s final traffic that is visible at `nowMs`. */
export declare function arrivedShare(day: number, nowMs: number): number;
/** Whether every day of [fromDay, toDay) is final at `nowMs`, so the data no longer moves. */
export declare function isSettled(toDay: number, nowMs: number): boolean;
/** Data moves at most once a minute, so caches can key on the minute. */
export declare function truncateToMinute(ms: number): number;
