/**
 * How a run ends: the one mapping from what stopped it to its exit code, shared by export,
 * sync and jobs (DESIGN §3: 0 done, 1 failed, 75 stopped early with work left, 130
 * interrupted).
 */
import {
  ApiFailingError,
  ApiUnreachableError,
  BudgetExhaustedError,
  DatabaseBusyError,
  DatabaseError,
  DocpipeError,
  EXIT,
  HttpError,
  InterruptedError,
  RateLimitError,
  type ExitCode,
} from './errors.js';

/**
 * Why a run stopped before its work was done.
 * - `budget`: the request budget (or the API's rate limit) is spent; the next run carries on.
 * - `locked`: the database stayed held by another process; the spool keeps what was fetched.
 * - `failing`: the API failed request after request, or repeated its pages; the rest of the
 *   budget is kept for the next run.
 * - `interrupted`: Ctrl-C or SIGTERM.
 * - `fatal`: every later request or write would fail too (a refused key, a database error).
 */
export type StopReason = 'budget' | 'failing' | 'locked' | 'interrupted' | 'fatal';

/** What an error means for the run: a reason to stop, or null for a failure of one item. */
export function stopReasonOf(error: unknown): StopReason | null {
  if (error instanceof InterruptedError) return 'interrupted';
  if (error instanceof BudgetExhaustedError || error instanceof RateLimitError) return 'budget';
  if (error instanceof ApiFailingError) return 'failing';
  if (error instanceof DatabaseBusyError) return 'locked';
  // A refused key or a missing scope fails every later request too, and so does a host
  // that cannot be reached.
  if (error instanceof HttpError && (error.status === 401 || error.status === 403)) return 'fatal';
  if (error instanceof ApiUnreachableError) return 'fatal';
  if (error instanceof DatabaseError || !(error instanceof DocpipeError)) return 'fatal';
  return null;
}

/**
 * Whether a stop met while the run was already stopping (the file held at its last load, a
 * stop signal during it) replaces the stop it had: a stop signal wins, and a held file does
 * not hide a refused key (or a spool that cannot be written): that needs a person (exit 1).
 */
export function replacesStop(current: StopReason | null, next: StopReason): boolean {
  if (current === null) return true;
  if (current === 'interrupted') return false;
  return !(current === 'fatal' && next === 'locked');
}

/** The exit code of a run that stopped for `stopped` (or ran to the end), with or without failed items. */
export function runExitCode(stopped: StopReason | null, failed: boolean): ExitCode {
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
export function runStatus(stopped: StopReason | null, exitCode: ExitCode): string {
  return exitCode === EXIT.ok ? 'ok' : (stopped ?? 'failed');
}
