/**
 * How a run ends: the one mapping from what stopped it to its exit code, shared by export,
 * sync and jobs (DESIGN §3: 0 done, 1 failed, 75 stopped early with work left, 130
 * interrupted).
 */
import { ApiFailingError, ApiUnreachableError, BudgetExhaustedError, DatabaseBusyError, DatabaseError, DocpipeError, EXIT, HttpError, InterruptedError, RateLimitError, } from './errors.js';
/** What an error means for the run: a reason to stop, or null for a failure of one item. */
export function stopReasonOf(error) {
    if (error instanceof InterruptedError)
        return 'interrupted';
    if (error instanceof BudgetExhaustedError || error instanceof RateLimitError)
        return 'budget';
    if (error instanceof ApiFailingError)
        return 'failing';
    if (error instanceof DatabaseBusyError)
        return 'locked';
    // A refused key or a missing scope fails every later request too, and so does a host
    // that cannot be reached.
    if (error instanceof HttpError && (error.status === 401 || error.status === 403))
        return 'fatal';
    if (error instanceof ApiUnreachableError)
        return 'fatal';
    if (error instanceof DatabaseError || !(error instanceof DocpipeError))
        return 'fatal';
    return null;
}
/** The exit code of a run that stopped for `stopped` (or ran to the end), with or without failed items. */
export function runExitCode(stopped, failed) {
    switch (stopped) {
        case 'interrupted':
            return EXIT.interrupted;
        case 'fatal':
            return EXIT.failed;
        case 'budget':
        case 'failing':
        case 'locked':
            return EXIT.budget;
        case null:
            return failed ? EXIT.failed : EXIT.ok;
    }
}
/** The `runs.status` recorded for an outcome. */
export function runStatus(stopped, exitCode) {
    return exitCode === EXIT.ok ? 'ok' : (stopped ?? 'failed');
}
//# sourceMappingURL=outcome.js.map