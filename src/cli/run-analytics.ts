/** What `export` and `sync` share: open the database, run the export, record and report the run. */
import type { Argv } from 'yargs';
import { parseDuration } from '../core/duration.js';
import { UsageError, type ExitCode } from '../core/errors.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_REQUESTS_PER_HOUR, type AnalyticsHooks, type AnalyticsResult } from '../lib/analytics.js';
import { resolveApiKey } from './api-key.js';
import { commonOf } from './common-options.js';
import { requireKeptDb, type CommonOptions } from '../lib/common.js';
import type { CliContext } from './context.js';
import { loggerFor, type GlobalArgs } from './io.js';
import { createProgress } from './output/progress.js';
import { neutralise, jsonLine } from '../core/neutralise.js';

export { DEFAULT_REQUESTS_PER_HOUR };

/** The options `export` and `sync` share for day-long backfills. */
export function waitOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('wait', {
      type: 'boolean',
      default: false,
      describe: 'sleep until the hourly budget frees a slot instead of stopping with exit 75 (the database is not held meanwhile)',
    })
    .option('max-wait', {
      type: 'string',
      describe: 'with --wait: the longest single wait, e.g. 90m or 6h (default: no limit)',
    });
}

/** The longest budget wait a run accepts, from `--wait` and `--max-wait`. */
export function maxWaitMsOf(args: { wait: boolean; maxWait?: string | undefined }): number {
  if (args.maxWait !== undefined && !args.wait) throw new UsageError('--max-wait needs --wait');
  if (!args.wait) return DEFAULT_MAX_WAIT_MS;
  if (args.maxWait === undefined) return Number.POSITIVE_INFINITY;
  const ms = parseDuration(args.maxWait, '--max-wait');
  // Every run waits up to a minute for the budget; --wait is a run that waits longer (and then
  // the pipeline's maxRequestsPerRun does not apply). A shorter --max-wait would quietly be no --wait.
  if (ms <= DEFAULT_MAX_WAIT_MS) {
    throw new UsageError(`invalid --max-wait '${args.maxWait}': expected more than 1m (a run waits up to 1m for the budget without --wait)`);
  }
  return ms;
}

export function formatSummary(s: AnalyticsResult): string {
  const windows = (n: number): string => `${n} window${n === 1 ? '' : 's'}`;
  const parts = [
    `${windows(s.windowsPlanned)} planned`,
    s.windowsLeftToOthers > 0
      ? `${s.windowsSkipped} skipped (${s.windowsSkipped - s.windowsLeftToOthers} already loaded, ${s.windowsLeftToOthers} left to another run at work on them)`
      : `${s.windowsSkipped} skipped (already loaded)`,
    `${s.windowsLoaded} loaded${s.windowsFromSpool > 0 ? ` (${s.windowsFromSpool} from the spool)` : ''}`,
    `${s.windowsFailed} failed`,
    `${s.rows} rows`,
    `${s.requests} requests`,
    `${s.retries} retries`,
    `${s.warnings} warnings`,
  ];
  // The stop's text may carry the API's words (an error body): shown inert on a terminal.
  const stopMessage = neutralise(s.stopMessage ?? '');
  const tail =
    s.stopped === 'budget'
      ? // The budget, or the API asking for quiet (429, or 503 with a long Retry-After): the message says which.
        `\nstopped early: ${stopMessage}; ${windows(s.windowsLeft)} left for the next run`
      : s.stopped === 'failing'
        ? `\nstopped: ${stopMessage}; ${windows(s.windowsLeft)} left for the next run`
      : s.stopped === 'locked'
        ? `\nstopped: ${stopMessage}${s.requests > 0 || s.windowsFromSpool > 0 ? '; received pages are kept in the spool for the next run' : ''}`
      : s.stopped === 'interrupted'
        ? `\ninterrupted; ${windows(s.windowsLeft)} left, everything loaded so far is saved`
        : s.stopped === 'fatal'
          ? `\nstopped: ${stopMessage}`
          : '';
  const threads = s.threads
    ? `\nthreads: ${s.threads.threadsPlanned} planned, ${s.threads.threadsLoaded} loaded${s.threads.threadsFromSpool > 0 ? ` (${s.threads.threadsFromSpool} from the spool)` : ''}, ${s.threads.threadsFailed} failed, ${s.threads.threadsSkipped > 0 ? `${s.threads.threadsSkipped} left to another run, ` : ''}${s.threads.threadsLeft} left${s.threads.threadsWaiting > 0 ? `; ${s.threads.threadsWaiting} wait for their day to end` : ''}`
    : '';
  return `${parts.join(', ')}${threads}${tail}\n`;
}

/** Runs `exportAnalytics` or `syncPipeline` for a command: progress on stderr, the summary on stdout. */
export async function runAnalytics(
  ctx: CliContext,
  args: GlobalArgs,
  /** For the progress estimate: the budget the run paces itself to. */
  perHour: number,
  run: (common: CommonOptions & AnalyticsHooks) => Promise<AnalyticsResult>,
): Promise<ExitCode> {
  const { io } = ctx;
  requireKeptDb(args.db, '--db');
  const apiKey = resolveApiKey(args);
  const logger = loggerFor(io, args);
  const progress = createProgress(logger, io.stderr, io.isTTY, { perHour, now: () => io.clock.now() });
  let result: AnalyticsResult;
  try {
    result = await run({
      ...commonOf(ctx, args, apiKey, logger),
      onPlan: (plan) => progress.start(plan.toFetch + plan.fromSpool),
      onWindow: (event) => progress.window(event),
      onWait: (wait) => progress.waiting({ ...wait }),
      budgetHints: {
        // A run given --wait stops here only past its --max-wait.
        hourly: (args as GlobalArgs & { wait?: boolean }).wait
          ? 'run again then, raise --max-wait to sleep until it, or change the budget with --requests-per-hour'
          : 'run again then, add --wait to sleep until it, or change the budget with --requests-per-hour',
        cap: 'raise --max-requests to allow more requests in one run',
      },
    });
  } finally {
    progress.done();
  }
  if (logger.format === 'json') {
    io.stdout(jsonLine({ event: 'summary', ...result }));
  } else {
    io.stdout(formatSummary(result));
  }
  return result.exitCode;
}
