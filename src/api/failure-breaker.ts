/**
 * The circuit breaker that keeps a failing API from eating the organization's hourly budget
 * (DESIGN rule 11): after `limit` failed attempts in a row (5xx, timeouts, resets, 429s),
 * the next attempt is refused with ApiFailingError and the run stops with exit 75. Any
 * answer that is not a failure (2xx, or a 4xx that states a fact) closes it again.
 */
import { ApiFailingError } from '../core/errors.js';

/** Consecutive failed attempts that stop a run. @default */
export const DEFAULT_FAILURE_LIMIT = 8;

/** Pure: whether an attempt's status (0: no response) counts as the API failing. */
export function isFailedAttempt(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

function describeStatus(status: number): string {
  return status === 0 ? 'no response (timeout or connection error)' : `HTTP ${status}`;
}

export class FailureBreaker {
  private failures = 0;
  private lastStatus = 0;

  constructor(
    readonly limit: number = DEFAULT_FAILURE_LIMIT,
    /** What stopping keeps, for the message. */
    private readonly keeps = "stopped to keep the rest of the hour's request budget for the next run",
  ) {}

  /** Failed attempts in a row so far. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  record(status: number): void {
    if (isFailedAttempt(status)) {
      this.failures++;
      this.lastStatus = status;
    } else {
      this.failures = 0;
    }
  }

  /** Throws ApiFailingError once `limit` attempts in a row have failed. */
  check(): void {
    if (this.failures < this.limit) return;
    throw new ApiFailingError(
      `the API failed ${this.failures} requests in a row (last: ${describeStatus(this.lastStatus)}); ${this.keeps}`,
    );
  }
}
