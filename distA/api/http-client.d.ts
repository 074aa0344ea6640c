import { type Clock } from '../core/clock.js';
import { DocpipeError } from '../core/errors.js';
import { type Transport } from './transport.js';
export declare const DEFAULT_BASE_URL = "https://api.mintlify.com";
export interface RequestInfo {
    method: string;
    /** Path and query, e.g. `/v1/analytics/p/visitors?limit=250`. */
    path: string;
    /** Not counted against the request budget (a key check); still logged. */
    unbudgeted?: boolean;
}
export interface ResponseInfo extends RequestInfo {
    /** HTTP status, or 0 when no response arrived. */
    status: number;
    startedAt: number;
    durationMs: number;
    /** The connection was never made (refused, unknown host): the server saw nothing. */
    notSent?: boolean;
}
export interface HttpClientOptions {
    apiKey: string;
    /** @default 'https://api.mintlify.com' */
    baseUrl?: string;
    /** Deadline for each attempt, in ms. @default 30_000 */
    timeoutMs?: number;
    /** Retries that back off (429/503 waits that honour Retry-After do not count). @default 4 */
    retries?: number;
    /** First backoff delay, in ms; doubles each retry, with jitter. @default 1_000 */
    minBackoffMs?: number;
    /** @default 30_000 */
    maxBackoffMs?: number;
    /** Longest Retry-After honoured; a longer one fails the request with the RateLimitError. @default 60_000 */
    maxRetryAfterMs?: number;
    /**
     * Retry-After waits honoured for one request; one more 429 fails it with the
     * RateLimitError, so that a server answering 429 to everything cannot hold a run. @default 5
     */
    maxRetryAfterWaits?: number;
    /** Bound on all attempts and waits of one request, in ms. @default 300_000 */
    maxRetryTimeMs?: number;
    /** @default systemClock */
    clock?: Clock;
    /** How bytes move. @default node:http(s) with keep-alive */
    transport?: Transport;
    /**
     * Called before every attempt; the request budget waits or throws here. What it returns is
     * handed to `afterAttempt` (the request journal's id for the attempt).
     */
    beforeAttempt?: (request: RequestInfo, signal: AbortSignal | undefined) => Promise<unknown>;
    /** Called after every attempt, whatever its outcome, with what `beforeAttempt` returned. */
    afterAttempt?: (response: ResponseInfo, token: unknown) => void | Promise<void>;
    /** Called when an attempt failed and another will be made, before the wait. */
    onRetry?: (error: DocpipeError, attempt: number, delay: RetryDelay) => void;
    /** Jitter source in [0, 1). @default Math.random */
    random?: () => number;
}
/** The wait before a retry: what the server asked (Retry-After), or backoff with jitter. */
export interface RetryDelay {
    kind: 'retry-after' | 'backoff';
    ms: number;
}
export interface RequestOptions<T> {
    method: 'GET' | 'POST';
    path: string;
    query?: Record<string, string | number | undefined>;
    body?: unknown;
    /** Turns the parsed JSON (and the body as received) into T, throwing DataError when it does not fit. */
    parse: (json: unknown, text: string) => T;
    /** Repeating the request is harmless. @default method === 'GET' */
    idempotent?: boolean;
    /** Stops waits (budget, Retry-After, backoff) and, unless `abortInFlight` is false, the request itself. */
    signal?: AbortSignal;
    /** Not counted against the request budget (see RequestInfo). @default false */
    unbudgeted?: boolean;
    /**
     * Whether the signal may abort a request already sent. A POST that is cut off mid-flight
     * has an unknown outcome, so job creation lets it finish. @default true
     */
    abortInFlight?: boolean;
    /**
     * Called before each attempt goes out, once the request budget has given it a slot (so
     * after any budget wait): the job ledger marks a prompt as being posted here.
     */
    beforeSend?: () => Promise<void>;
    /** Called after each attempt of this request with its HTTP status (0 when none arrived). */
    afterSend?: (status: number) => Promise<void>;
}
export declare function isLoopbackHost(hostname: string): boolean;
/** Refuses a base URL that would carry the key in the clear to another machine. */
export declare function checkBaseUrl(baseUrl: string): URL;
/**
 * Pure: why a key cannot be sent, or undefined when it can. A header value allows only
 * visible ASCII here (an admin key is `mint_` and letters and digits): a stray newline or
 * space pasted with the key would otherwise fail every request, over and over.
 */
export declare function apiKeyProblem(key: string): string | undefined;
/**
 * A body that is an error, whatever the status said: it carries `error` and none of the
 * fields of an answer (`id` of a job, `totals` of an analytics page).
 */
export declare function isErrorBody(json: unknown): boolean;
export declare class HttpClient {
    readonly baseUrl: URL;
    private readonly options;
    constructor(options: HttpClientOptions);
    /** The origin requests go to, e.g. `https://api.mintlify.com` (no key, no path). */
    get origin(): string;
    request<T>(request: RequestOptions<T>): Promise<T>;
    private buildUrl;
    private attempt;
}
