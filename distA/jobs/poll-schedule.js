/** Pure: how long to wait before poll number `attempt` (0-based) of a job. */
export const MAX_POLL_INTERVAL_MS = 60_000;
/**
 * Backs off from `firstMs` by 1.5x a poll up to `maxMs`, with ±20% jitter so that a batch's
 * jobs do not poll in lockstep. `random` is in [0, 1).
 */
export function pollDelay(attempt, firstMs, random, maxMs = MAX_POLL_INTERVAL_MS) {
    const cap = Math.max(firstMs, maxMs);
    const base = Math.min(cap, firstMs * 1.5 ** attempt);
    return Math.min(cap, Math.round(base * (0.8 + 0.4 * random)));
}
//# sourceMappingURL=poll-schedule.js.map