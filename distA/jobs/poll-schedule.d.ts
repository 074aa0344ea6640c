/** Pure: how long to wait before poll number `attempt` (0-based) of a job. */
export declare const MAX_POLL_INTERVAL_MS = 60000;
/**
 * Backs off from `firstMs` by 1.5x a poll up to `maxMs`, with ±20% jitter so that a batch's
 * jobs do not poll in lockstep. `random` is in [0, 1).
 */
export declare function pollDelay(attempt: number, firstMs: number, random: number, maxMs?: number): number;
