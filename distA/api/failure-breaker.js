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
export function isFailedAttempt(status) {
    return status === 0 || status === 429 || status >= 500;
}
function describeStatus(status) {
    return status === 0 ? 'no response (timeout or connection error)' : `HTTP ${status}`;
}
export class FailureBreaker {
    limit;
    failures = 0;
    lastStatus = 0;
    constructor(limit = DEFAULT_FAILURE_LIMIT) {
        this.limit = limit;
    }
    /** Failed attempts in a row so far. */
    get consecutiveFailures() {
        return this.failures;
    }
    record(status) {
        if (isFailedAttempt(status)) {
            this.failures++;
            this.lastStatus = status;
        }
        else {
            this.failures = 0;
        }
    }
    /** Throws ApiFailingError once `limit` attempts in a row have failed. */
    check() {
        if (this.failures < this.limit)
            return;
        throw new ApiFailingError(`the API failed ${this.failures} requests in a row (last: ${describeStatus(this.lastStatus)}); ` +
            `stopped to keep the rest of the hour's request budget for the next run`);
    }
}
//# sourceMappingURL=failure-breaker.js.map