/**
 * Time enters docpipe only through a Clock, so tests can fake the clock (and nothing else)
 * while talking to a real server over real HTTP.
 */
export interface Clock {
    /** Milliseconds since the epoch. */
    now(): number;
    /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
export declare const systemClock: Clock;
/**
 * A clock whose time only moves when something sleeps on it or a test advances it.
 * Sleeps resolve at once (after yielding), having moved time forward; `sleeps` records them.
 */
export declare class ManualClock implements Clock {
    readonly sleeps: number[];
    private current;
    constructor(start?: number | string);
    now(): number;
    advance(ms: number): void;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
