export type RetryDecision = 
/** Wait exactly what the server asked, without using up a retry. */
{
    action: 'wait';
    ms: number;
}
/** Exponential backoff with jitter, using up a retry. */
 | {
    action: 'backoff';
}
/** Give up now. */
 | {
    action: 'abort';
};
/**
 * @param idempotent whether repeating the request is harmless (GET). A POST is repeated only
 *   when the server provably did nothing: 429, 503, or a connection that never opened.
 */
export declare function decideRetry(error: unknown, idempotent: boolean): RetryDecision;
/**
 * Pure: the backoff before retry number `retry` (0 for the first): `minMs` doubling each
 * retry, capped at `maxMs`, then spread by jitter over [0.5, 1.5) of that (`random` in
 * [0, 1)), so that clients that failed together do not retry together.
 */
export declare function backoffDelay(retry: number, minMs: number, maxMs: number, random: number): number;
