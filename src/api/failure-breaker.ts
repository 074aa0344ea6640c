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

function describeStatus(status: number, badBody: boolean): string {
  if (badBody) return `HTTP ${status} with a body that is not an answer`;
  return status === 0 ? 'no response (timeout or connection error)' : `HTTP ${status}`;
}

/** What a stop of an analytics run keeps, as its message says. */
const KEEPS_BUDGET = "stopped to keep the rest of the hour's request budget for the next run";

export class FailureBreaker {
  private failures = 0;
  private lastStatus = 0;
  private lastBadBody = false;

  constructor(
    readonly limit: number = DEFAULT_FAILURE_LIMIT,
    /** What stopping keeps, for the message. */
    private readonly keeps = KEEPS_BUDGET,
  ) {}

  /** Failed attempts in a row so far. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /**
   * An attempt's outcome: `badBody` when a success status came with a body that is no answer
   * (an HTML login page, an empty body), which fails like a 5xx and is retried as one.
   */
  record(status: number, badBody = false): void {
    if (badBody || isFailedAttempt(status)) {
      this.failures++;
      this.lastStatus = status;
      this.lastBadBody = badBody;
    } else {
      this.failures = 0;
    }
  }

  /** Throws ApiFailingError once `limit` attempts in a row have failed. */
  check(): void {
    if (this.failures < this.limit) return;
    throw new ApiFailingError(
      `the API failed ${this.failures} requests in a row (last: ${describeStatus(this.lastStatus, this.lastBadBody)}); ${this.keeps}`,
    );
  }
}

/**
 * Windows (or threads) in a row whose fetch failed, whatever the failure, that stop a run: an
 * answer every one of them gets (a 404 for a project that is not there, a redirect, a schema
 * the API changed) would otherwise cost at least a request each until the hour's budget is spent.
 */
export const DEFAULT_FAILED_IN_ROW_LIMIT = 5;

/** Counts units of work (windows, threads) that failed in a row; one that succeeds starts it over. */
export class FailedInRow {
  private count = 0;

  constructor(
    /** What a unit is, plural, for the message: `windows`. */
    private readonly what: string,
    readonly limit: number = DEFAULT_FAILED_IN_ROW_LIMIT,
    /** What befell them, for the message. */
    private readonly outcome = 'failed',
  ) {}

  succeeded(): void {
    this.count = 0;
  }

  /** Records a failure (its message); returns the error that stops the run once `limit` failed in a row. */
  failed(error: string): ApiFailingError | undefined {
    this.count++;
    if (this.count < this.limit) return undefined;
    return new ApiFailingError(
      `${this.count} ${this.what} in a row ${this.outcome} (last: ${error}); ${KEEPS_BUDGET}`,
    );
  }
}
