/**
 * The request budget: at most `perHour` requests in any sliding hour for a scope (the
 * analytics budget is per organization), at most `maxRequests` in this run, and never a wait
 * longer than `maxWaitMs`. Its memory is the request log in the database, so a cron run that
 * starts right after another still sees the hour's requests.
 */
import { type Clock } from '../core/clock.js';
export declare const HOUR_MS = 3600000;
/**
 * Pure: how long to wait before one more request may start, given the start times of the
 * requests already made (any order) and the hourly allowance.
 */
export declare function planRequestSlot(times: readonly number[], now: number, perHour: number, windowMs?: number): number;
/** Where the budget remembers requests across runs. */
export interface RequestHistory {
    /** Start times (ms) of the scope's requests since `sinceMs`. */
    requestTimes(scope: string, sinceMs: number): Promise<number[]>;
}
export interface RequestBudgetOptions {
    scope: string;
    /** @default 100 */
    perHour?: number;
    /** Cap on requests in this run. @default Infinity */
    maxRequests?: number;
    /** Longest wait for the hourly budget before giving up with BudgetExhaustedError. @default 60_000 */
    maxWaitMs?: number;
    /** @default systemClock */
    clock?: Clock;
    history?: RequestHistory;
    /** Told before each wait for the hourly budget, with its length and the requests in the hour. */
    onWait?: (wait: {
        ms: number;
        usedLastHour: number;
    }) => void;
    /**
     * What the user can do, appended to the BudgetExhaustedError's message: `hourly` when the
     * hourly budget is spent, `cap` when the run's cap is reached (the CLI names its options).
     */
    hints?: {
        hourly?: string;
        cap?: string;
    };
    /**
     * Runs before the hourly budget makes a request wait (or stops the run), so that what
     * would fail anyway fails first: the key check. What it throws, the acquire throws.
     */
    beforeWait?: (signal: AbortSignal | undefined) => Promise<void>;
}
export declare class RequestBudget {
    readonly scope: string;
    readonly perHour: number;
    readonly maxRequests: number;
    private readonly maxWaitMs;
    private readonly clock;
    private readonly history;
    private readonly onWait;
    private readonly hints;
    private readonly beforeWait;
    /** Start times of the scope's requests, ascending; those before `head` left the hour. */
    private times;
    private head;
    private loaded;
    private used;
    private queue;
    constructor(options: RequestBudgetOptions);
    /** Requests made through this budget in this run. */
    get requestsUsed(): number;
    /** Whether the run's cap allows another request (the hourly budget may still make it wait). */
    get hasRunBudget(): boolean;
    /** Reads the hour's requests from the history, unless read since the last wait (the first acquire does it otherwise). */
    ready(): Promise<void>;
    /**
     * Waits for a slot and takes it, or throws BudgetExhaustedError. Concurrent callers queue,
     * so that two of them never see the same free slot.
     */
    acquire(signal?: AbortSignal): Promise<void>;
    private acquireNow;
    /**
     * planRequestSlot for the sorted times kept here, in constant time per request (a run of a
     * million requests an hour would otherwise rescan the hour before each one).
     */
    private slotWait;
}
