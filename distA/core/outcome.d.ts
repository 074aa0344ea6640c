/**
 * How a run ends: the one mapping from what stopped it to its exit code, shared by export,
 * sync and jobs (DESIGN §3: 0 done, 1 failed, 75 stopped early with work left, 130
 * interrupted).
 */
import { type ExitCode } from './errors.js';
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
export declare function stopReasonOf(error: unknown): StopReason | null;
/** The exit code of a run that stopped for `stopped` (or ran to the end), with or without failed items. */
export declare function runExitCode(stopped: StopReason | null, failed: boolean): ExitCode;
/** The `runs.status` recorded for an outcome. */
export declare function runStatus(stopped: StopReason | null, exitCode: ExitCode): string;
