/** What `export` and `sync` share: open the database, run the export, record and report the run. */
import { FailureBreaker } from '../api/failure-breaker.js';
import type { Argv } from 'yargs';
import { parseDuration } from '../core/duration.js';
import { EXIT, UsageError, type ExitCode } from '../core/errors.js';
import { runExport, type ExportSummary, type ExportTask } from '../extract/run-export.js';
import { finishRun, newRunId, startRun } from '../load/runs.js';
import { resolveApiKey } from './api-key.js';
import { loggerFor, type CliIo, type GlobalArgs } from './io.js';
import { createProgress } from './output/progress.js';
import { createSession, createWorkspace, type SessionOptions } from './session.js';
import { runExitCode, runStatus } from '../core/outcome.js';
import type { Window } from '../core/domain.js';
import { runThreads, type ThreadsSummary } from '../extract/run-threads.js';

/** The analytics budget of an organization (DESIGN §1). */
export const DEFAULT_REQUESTS_PER_HOUR = 100;

/** Longest wait for the hourly budget without `--wait`: longer stops the run with exit 75. */
const MAX_BUDGET_WAIT_MS = 60_000;

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
  if (!args.wait) return MAX_BUDGET_WAIT_MS;
  return args.maxWait === undefined ? Number.POSITIVE_INFINITY : parseDuration(args.maxWait, '--max-wait');
}

export interface AnalyticsRunOptions {
  command: string;
  tasks: ExportTask[];
  refresh: boolean;
  lookbackDays: number;
  perHour: number;
  maxRequests: number | undefined;
  /**
   * Longest wait for the hourly budget before stopping with exit 75: a minute, or with
   * `--wait` as long as `--max-wait` allows (unbounded without it).
   */
  maxWaitMs: number;
  /** Client overrides for tests and the benchmark. */
  http?: SessionOptions['http'];
  /** `export assistant --threads`: then fetch the threads of these projects' conversations in the range. */
  threads?: { projects: string[]; range: Window };
}

export function formatSummary(s: ExportSummary & { retries: number; threads?: ThreadsSummary }): string {
  const windows = (n: number): string => `${n} window${n === 1 ? '' : 's'}`;
  const parts = [
    `${windows(s.windowsPlanned)} planned`,
    `${s.windowsSkipped} skipped (already loaded)`,
    `${s.windowsLoaded} loaded${s.windowsFromSpool > 0 ? ` (${s.windowsFromSpool} from the spool)` : ''}`,
    `${s.windowsFailed} failed`,
    `${s.rows} rows`,
    `${s.requests} requests`,
    `${s.retries} retries`,
    `${s.warnings} warnings`,
  ];
  const tail =
    s.stopped === 'budget'
      ? `\nstopped early on the request budget (${s.stopMessage ?? ''}); ${windows(s.windowsLeft)} left for the next run`
      : s.stopped === 'locked'
        ? `\nstopped: ${s.stopMessage ?? ''}; received pages are kept in the spool for the next run`
      : s.stopped === 'interrupted'
        ? `\ninterrupted; ${windows(s.windowsLeft)} left, everything loaded so far is saved`
        : s.stopped === 'fatal'
          ? `\nstopped: ${s.stopMessage ?? ''}`
          : '';
  const threads = s.threads
    ? `\nthreads: ${s.threads.threadsPlanned} planned, ${s.threads.threadsLoaded} loaded${s.threads.threadsFromSpool > 0 ? ` (${s.threads.threadsFromSpool} from the spool)` : ''}, ${s.threads.threadsFailed} failed, ${s.threads.threadsLeft} left`
    : '';
  return `${parts.join(', ')}${threads}${tail}\n`;
}

export async function runAnalytics(io: CliIo, args: GlobalArgs, options: AnalyticsRunOptions): Promise<ExitCode> {
  const apiKey = resolveApiKey(args);
  const logger = loggerFor(io, args);
  const runId = newRunId(io.clock.now());
  // DuckDB on one thread while loading: the other core is better spent fetching and parsing.
  const workspace = createWorkspace(args, runId, logger, { threads: 1 });
  const { store } = workspace;
  await store.write((tx) => startRun(tx, runId, options.command, io.clock.now()));
  const progress = createProgress(logger, io.stderr, io.isTTY, { perHour: options.perHour, now: () => io.clock.now() });
  const session = createSession({
    workspace,
    apiKey,
    baseUrl: args.baseUrl,
    scope: 'analytics',
    perHour: options.perHour,
    maxRequests: options.maxRequests,
    maxWaitMs: options.maxWaitMs,
    clock: io.clock,
    breaker: new FailureBreaker(),
    logger,
    onWait: (wait) => progress.waiting({ ...wait }),
    ...(options.http ? { http: options.http } : {}),
  });
  let summary: ExportSummary;
  try {
    summary = await runExport({
      store,
      spool: workspace.spool,
      client: session.client,
      budget: session.budget,
      clock: io.clock,
      runId,
      tasks: options.tasks,
      refresh: options.refresh,
      lookbackDays: options.lookbackDays,
      ...(io.signal ? { signal: io.signal } : {}),
      onPlan: (plan) => progress.start(plan.toFetch + plan.fromSpool),
      onWindow: (event) => progress.window(event),
    });
  } catch (error) {
    progress.done();
    // Record the failure (and move the request journal in) if the database lets us.
    await store
      .write((tx) => finishRun(tx, runId, { status: 'failed', exitCode: EXIT.failed, summary: { error: String(error) } }, io.clock.now()))
      .catch((second: unknown) => logger.warn('run not recorded', { error: String(second) }));
    throw error;
  }
  progress.done();
  let threads: ThreadsSummary | undefined;
  if (options.threads && (summary.stopped === null || summary.stopped === 'locked')) {
    threads = await runThreads({
      store,
      spool: workspace.spool,
      client: session.client,
      runId,
      projects: options.threads.projects,
      range: options.threads.range,
      refresh: options.refresh,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (threads.stopped !== null && summary.stopped === null) {
      summary.stopped = threads.stopped;
      summary.stopMessage = threads.stopMessage;
    }
    summary.requests = session.budget.requestsUsed;
    summary.exitCode = runExitCode(summary.stopped, summary.windowsFailed > 0 || threads.threadsFailed > 0);
  }
  const full = { ...summary, ...(threads ? { threads } : {}), retries: session.stats.retries, runId };
  const status = runStatus(summary.stopped, summary.exitCode);
  // Also moves the rest of the request journal into request_log.
  await store.write((tx) => finishRun(tx, runId, { status, exitCode: summary.exitCode, summary: full }, io.clock.now()));
  if (logger.format === 'json') {
    io.stdout(JSON.stringify({ event: 'summary', command: options.command, ...full }) + '\n');
  } else {
    io.stdout(formatSummary(full));
  }
  return summary.exitCode;
}
