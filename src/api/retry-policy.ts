/**
 * The retry decision, as a pure function of the error and whether the request may be
 * repeated safely. The HTTP client applies it through p-retry.
 */
import { HttpError, MalformedResponseError, NetworkError, RateLimitError } from '../core/errors.js';

export type RetryDecision =
  /** Wait exactly what the server asked, without using up a retry. */
  | { action: 'wait'; ms: number }
  /** Exponential backoff with jitter, using up a retry. */
  | { action: 'backoff' }
  /** Give up now. */
  | { action: 'abort' };

/**
 * @param idempotent whether repeating the request is harmless (GET). A POST is repeated only
 *   when the server provably did nothing: 429, 503, or a connection that never opened.
 * @param unsaidRetryAfterMs how long a 429 without Retry-After is waited for; unset: backed off.
 */
export function decideRetry(error: unknown, idempotent: boolean, unsaidRetryAfterMs?: number): RetryDecision {
  if (error instanceof RateLimitError) {
    // A 429 that does not say how long: waited for as long as the caller takes it to mean
    // (a run that waits for the budget), or else backed off.
    const ms = error.retryAfterMs ?? (error.status === 429 ? unsaidRetryAfterMs : undefined);
    return ms === undefined ? { action: 'backoff' } : { action: 'wait', ms };
  }
  if (error instanceof HttpError) {
    if (error.status === 503) return { action: 'backoff' };
    if (error.status >= 500 && idempotent) return { action: 'backoff' };
    return { action: 'abort' };
  }
  if (error instanceof NetworkError) {
    return error.phase === 'before-send' || idempotent ? { action: 'backoff' } : { action: 'abort' };
  }
  // A truncated body on a GET is usually transient; on a POST the job may exist. A body that
  // parses but breaks the schema will break again, so it is not retried.
  if (error instanceof MalformedResponseError && idempotent) return { action: 'backoff' };
  return { action: 'abort' };
}

/**
 * Pure: the backoff before retry number `retry` (0 for the first): `minMs` doubling each
 * retry, capped at `maxMs`, then spread by jitter over [0.5, 1.5) of that (`random` in
 * [0, 1)), so that clients that failed together do not retry together.
 */
export function backoffDelay(retry: number, minMs: number, maxMs: number, random: number): number {
  const base = Math.min(maxMs, minMs * 2 ** retry);
  return Math.round(base * (0.5 + random));
}
