/**
 * How far the simulated data has arrived at a given moment. Days are UTC day numbers
 * (days since 1970-01-01). Days before yesterday-but-one are final; the last two days
 * are a little short ("late data") and grow to their final value; today is partial, in
 * proportion to the part of the day gone by; later days are empty.
 */
export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Days that may still grow: today and the two before it. */
export const LATE_DAYS = 2;
const LATE_SHORTFALL = 0.06;
const LATE_HALF_LIFE_HOURS = 8;
export function dayOf(ms) {
    return Math.floor(ms / DAY_MS);
}
/** The share (0..1) of day `day`'s final traffic that is visible at `nowMs`. */
export function arrivedShare(day, nowMs) {
    const today = dayOf(nowMs);
    if (day > today)
        return 0;
    if (day < today - LATE_DAYS)
        return 1;
    const dayEnd = (day + 1) * DAY_MS;
    const settled = 1 - LATE_SHORTFALL * Math.exp(-Math.max(0, nowMs - dayEnd) / HOUR_MS / LATE_HALF_LIFE_HOURS);
    if (day < today)
        return settled;
    return ((nowMs - day * DAY_MS) / DAY_MS) * settled;
}
/** Whether every day of [fromDay, toDay) is final at `nowMs`, so the data no longer moves. */
export function isSettled(toDay, nowMs) {
    return toDay <= dayOf(nowMs) - LATE_DAYS;
}
/** Data moves at most once a minute, so caches can key on the minute. */
export function truncateToMinute(ms) {
    return Math.floor(ms / 60_000) * 60_000;
}
//# sourceMappingURL=data-clock.js.map