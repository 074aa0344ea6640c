/**
 * The error hierarchy. Every error docpipe raises on purpose is a DocpipeError carrying
 * the process exit code it maps to; the CLI's single top-level handler turns it into one
 * line and that code. Messages never contain the API key, and a wrapped error stays in
 * `cause` rather than being pasted into the message.
 */
export declare const EXIT: {
    readonly ok: 0;
    readonly failed: 1;
    readonly usage: 2;
    readonly budget: 75;
    readonly interrupted: 130;
};
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
export declare class DocpipeError extends Error {
    readonly exitCode: ExitCode;
    constructor(message: string, options?: ErrorOptions);
}
/** Bad command line, bad config or bad input file: exit 2. */
export declare class UsageError extends DocpipeError {
    readonly exitCode: 2;
}
/** A response that does not match the API's schema. */
export declare class DataError extends DocpipeError {
}
/** A body that is not JSON at all (truncated, or an HTML error page): usually transient. */
export declare class MalformedResponseError extends DataError {
}
/** A database failure, wrapped with the table or statement involved. */
export declare class DatabaseError extends DocpipeError {
}
/**
 * The database file stayed held by another process (a reader or another writer) for longer
 * than the lock wait: exit 75, nothing is lost (received pages stay in the spool).
 */
export declare class DatabaseBusyError extends DatabaseError {
    readonly exitCode: 75;
}
/** The request budget (per hour, or the per-run cap) is spent: exit 75, work left for next run. */
export declare class BudgetExhaustedError extends DocpipeError {
    readonly exitCode: 75;
}
/**
 * The API is failing in a way that would eat the hour's budget for nothing (requests that
 * fail again and again, pages that repeat): exit 75, the rest of the budget kept for later.
 */
export declare class ApiFailingError extends DocpipeError {
    readonly exitCode: 75;
}
/** Ctrl-C or SIGTERM: exit 130 after saving what finished. */
export declare class InterruptedError extends DocpipeError {
    readonly exitCode: 130;
}
/** A non-2xx HTTP response. `url` never carries the key (it is only ever sent in a header). */
export declare class HttpError extends DocpipeError {
    readonly status: number;
    readonly method: string;
    readonly url: string;
    /** The server's `error` field, or the start of a plain-text body. */
    readonly serverMessage: string | undefined;
    constructor(status: number, method: string, url: string, serverMessage?: string, options?: ErrorOptions);
}
/**
 * HTTP 401 or 403: the key is expired or wrong, lacks a scope (GET needs `read`, POST
 * `write`), or is used from an IP it does not allow. Every later request would fail too.
 */
export declare class KeyRejectedError extends HttpError {
    constructor(status: number, method: string, url: string, serverMessage?: string);
}
/** HTTP 429 (or 503 with Retry-After): `retryAfterMs` is what the server asked us to wait. */
export declare class RateLimitError extends HttpError {
    readonly retryAfterMs: number | undefined;
    constructor(status: number, method: string, url: string, retryAfterMs: number | undefined, serverMessage?: string);
}
/**
 * Where a transport failure happened. `before-send`: the connection was never made, so the
 * server provably saw nothing (safe to retry a POST). `after-send`: reset, dropped or timed
 * out once the request may have reached the server (a POST's outcome is unknown).
 */
export type NetworkPhase = 'before-send' | 'after-send';
export declare class NetworkError extends DocpipeError {
    readonly method: string;
    readonly url: string;
    readonly phase: NetworkPhase;
    readonly code: string | undefined;
    constructor(method: string, url: string, phase: NetworkPhase, code: string | undefined, options?: ErrorOptions);
}
/** Every request has a deadline; this one passed it (outcome unknown for a POST). */
export declare class TimeoutError extends NetworkError {
}
/**
 * The API's host could not be reached at all (connection refused, unknown host) after every
 * retry: nothing was sent, and every later request would fail the same way, so the run ends.
 */
export declare class ApiUnreachableError extends DocpipeError {
    readonly origin: string;
    readonly code: string | undefined;
    constructor(origin: string, code: string | undefined, options?: ErrorOptions);
}
export declare function exitCodeOf(error: unknown): ExitCode;
