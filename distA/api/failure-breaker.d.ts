/** Consecutive failed attempts that stop a run. @default */
export declare const DEFAULT_FAILURE_LIMIT = 8;
/** Pure: whether an attempt's status (0: no response) counts as the API failing. */
export declare function isFailedAttempt(status: number): boolean;
export declare class FailureBreaker {
    readonly limit: number;
    private failures;
    private lastStatus;
    constructor(limit?: number);
    /** Failed attempts in a row so far. */
    get consecutiveFailures(): number;
    record(status: number): void;
    /** Throws ApiFailingError once `limit` attempts in a row have failed. */
    check(): void;
}
