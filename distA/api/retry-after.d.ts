/**
 * Pure header parsing. `Retry-After` is either delta-seconds or an HTTP date (RFC 9110
 * §10.2.3); the API does not document it, so anything else is treated as absent.
 */
/** Milliseconds to wait, or undefined when the header is absent or unparseable. */
export declare function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined;
